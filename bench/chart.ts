import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchResults } from './results';

const WIDTH = 960;
const PANEL_HEIGHT = 260;
const MARGIN = { left: 70, right: 20, top: 40, bottom: 60 };
const COLORS = { service: '#2563eb', handWritten: '#9ca3af', bare: '#dc2626' };

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

interface Bars {
  title: string;
  unit: string;
  values: Array<{ label: string; service: number; handWritten: number }>;
  /** Horizontal reference lines, such as ceiling (a). */
  references: Array<{ label: string; value: number }>;
}

function panel(bars: Bars, top: number): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const max = Math.max(1, ...bars.values.flatMap((value) => [value.service, value.handWritten]), ...bars.references.map((line) => line.value)) * 1.1;
  const y = (value: number): number => top + MARGIN.top + plotHeight - (value / max) * plotHeight;
  const group = plotWidth / Math.max(1, bars.values.length);
  const barWidth = Math.min(28, group / 3);
  const parts = [
    `<text x="${MARGIN.left}" y="${top + 24}" font-size="15" font-weight="bold">${escape(bars.title)}</text>`,
    `<line x1="${MARGIN.left}" y1="${y(0)}" x2="${WIDTH - MARGIN.right}" y2="${y(0)}" stroke="#111"/>`,
  ];
  for (let tick = 0; tick <= 4; tick += 1) {
    const value = (max / 4) * tick;
    parts.push(`<text x="${MARGIN.left - 8}" y="${y(value) + 4}" font-size="11" text-anchor="end">${Math.round(value)}</text>`);
    parts.push(`<line x1="${MARGIN.left}" y1="${y(value)}" x2="${WIDTH - MARGIN.right}" y2="${y(value)}" stroke="#e5e7eb"/>`);
  }
  bars.values.forEach((value, index) => {
    const x = MARGIN.left + group * index + group / 2;
    parts.push(`<rect x="${x - barWidth}" y="${y(value.service)}" width="${barWidth}" height="${y(0) - y(value.service)}" fill="${COLORS.service}"/>`);
    parts.push(`<rect x="${x}" y="${y(value.handWritten)}" width="${barWidth}" height="${y(0) - y(value.handWritten)}" fill="${COLORS.handWritten}"/>`);
    parts.push(`<text x="${x}" y="${y(0) + 16}" font-size="11" text-anchor="middle">${escape(value.label)}</text>`);
  });
  for (const line of bars.references) {
    parts.push(
      `<line x1="${MARGIN.left}" y1="${y(line.value)}" x2="${WIDTH - MARGIN.right}" y2="${y(line.value)}" stroke="${COLORS.bare}" stroke-dasharray="6 4"/>`,
    );
    parts.push(
      `<text x="${WIDTH - MARGIN.right}" y="${y(line.value) - 4}" font-size="11" text-anchor="end" fill="${COLORS.bare}">${escape(line.label)}</text>`,
    );
  }
  parts.push(
    `<text x="14" y="${top + MARGIN.top + plotHeight / 2}" font-size="11" transform="rotate(-90 14 ${top + MARGIN.top + plotHeight / 2})">${escape(bars.unit)}</text>`,
  );
  return parts.join('\n');
}

/** req/s and p99 per scenario and connection count: the service (blue) beside its hand-written ceiling (grey), (a) dashed. */
export function svgChart(results: BenchResults): string {
  const values = (pick: (figures: { requestsPerSecond: number; p99Ms: number }) => number) =>
    results.runs.map((run) => ({ label: `${run.scenario} @${run.service.connections}`, service: pick(run.service), handWritten: pick(run.handWritten) }));
  const throughput = panel(
    {
      title: 'Requests per second: service (blue) vs hand-written ceiling (b) (grey); dashed: (a) bare Express',
      unit: 'req/s',
      values: values((figures) => figures.requestsPerSecond),
      references: results.bareExpress.map((figures) => ({ label: `(a) @${figures.connections}`, value: figures.requestsPerSecond })),
    },
    0,
  );
  const latency = panel(
    { title: 'p99 latency (ms): service (blue) vs hand-written ceiling (b) (grey)', unit: 'ms', values: values((figures) => figures.p99Ms), references: [] },
    PANEL_HEIGHT,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${PANEL_HEIGHT * 2}" font-family="sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
${throughput}
${latency}
</svg>
`;
}

/** Writes the run's chart beside its JSON, and as latest.svg. */
export function writeChart(results: BenchResults, directory: string, stamp: string): void {
  if (results.runs.length === 0) return;
  const svg = svgChart(results);
  writeFileSync(path.join(directory, `bench-${stamp}.svg`), svg);
  writeFileSync(path.join(directory, 'latest.svg'), svg);
}
