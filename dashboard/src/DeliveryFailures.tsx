import { failureGroupLine, failureLabel, type DeliveryFailureGroup, type LastDeliveryFailure } from '../../contract/delivery-failures.ts';
import { Time } from './clock/index.ts';

/** Why deliveries failed, one line per reason with its count, and the page that explains a fix that is the owner's. */
export function DeliveryFailures({ failures, label = 'Why deliveries failed' }: { failures: DeliveryFailureGroup[]; label?: string }) {
  if (failures.length === 0) return null;
  return (
    <div className="delivery-failures" aria-label={label}>
      <strong>{label}</strong>
      <ul>
        {failures.map((group) => (
          <li key={`${group.status}-${group.host}-${group.reason}`} data-failure={failureLabel(group)}>
            {failureGroupLine(group)}
            {group.docsUrl && (
              <>
                {' — '}
                <a href={group.docsUrl} target="_blank" rel="noreferrer">
                  how to fix it
                </a>
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A subscriber's last failed or expired delivery. */
export function LastFailure({ failure }: { failure: LastDeliveryFailure | null }) {
  if (!failure) return <>—</>;
  return (
    <span data-last-failure={failureLabel(failure)}>
      {failureLabel(failure)} ({failure.outcome}, campaign {failure.campaignId}, {failure.attempts}{' '}
      {failure.attempts === 1 ? 'attempt' : 'attempts'}, <Time value={failure.at} />)
      {failure.docsUrl && (
        <>
          {' — '}
          <a href={failure.docsUrl} target="_blank" rel="noreferrer">
            how to fix it
          </a>
        </>
      )}
    </span>
  );
}
