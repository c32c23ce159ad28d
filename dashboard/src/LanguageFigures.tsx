import type { Campaign } from '../../contract/owner-api.ts';
import { formatNumber } from './api.ts';
import { FiguresTable, type Column } from './FiguresTable.tsx';

const COLUMNS: Column[] = [
  { heading: 'Language' },
  { heading: 'Recipients', numeric: true },
  { heading: 'Delivered', numeric: true },
  { heading: 'Clicked', numeric: true },
];

/** A campaign with texts per language: its figures by the language each subscriber got (docs/languages.md). */
export function LanguageFigures({ campaign }: { campaign: Campaign }) {
  if (!campaign.byLanguage?.length) return null;
  return (
    <FiguresTable label="By language" columns={COLUMNS}>
      {campaign.byLanguage.map((figure) => (
        <tr key={figure.language} data-language={figure.language}>
          <td>{figure.language === 'default' ? 'Default texts' : figure.language}</td>
          <td className="num">{formatNumber(figure.recipients)}</td>
          <td className="num">{formatNumber(figure.delivered)}</td>
          <td className="num">{formatNumber(figure.clicked)}</td>
        </tr>
      ))}
    </FiguresTable>
  );
}
