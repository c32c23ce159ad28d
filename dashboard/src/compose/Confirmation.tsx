import { formatNumber } from '../api.ts';
import { SendTime } from '../clock/index.ts';

/** The last step before sending: how many active subscribers the audience holds, and send or go back. */
export function Confirmation(props: {
  title: string;
  recipients: number;
  audience: string;
  scheduled: boolean;
  /** When it goes (campaignRequestOf's sendAt and localTime), stated on the owner's clock and in UTC. */
  when?: { sendAt?: string; localTime?: string };
  busy: boolean;
  onSend(): void;
  onBack(): void;
}) {
  const { recipients, audience } = props;
  return (
    <div className="confirm" role="alertdialog" aria-labelledby="confirm-text">
      <p id="confirm-text">
        {recipients === 0 ? (
          <>No active subscriber is in {audience}: nobody would receive it.</>
        ) : (
          <>
            Send “{props.title}” to <strong data-recipients={recipients}>{formatNumber(recipients)}</strong> subscriber
            {recipients === 1 ? '' : 's'} ({audience})?
          </>
        )}
      </p>
      {props.when && <SendTime sendAt={props.when.sendAt} localTime={props.when.localTime} />}
      <div className="buttons">
        <button type="button" onClick={props.onSend} disabled={props.busy || recipients === 0}>
          {props.scheduled ? 'Schedule' : 'Send now'}
        </button>
        <button type="button" className="secondary" onClick={props.onBack}>
          Back to editing
        </button>
      </div>
    </div>
  );
}
