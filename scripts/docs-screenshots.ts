// The screenshots the README and docs/ show, each the picture a UI test takes of the current
// build (into test-artifacts/), and the sources of what it shows. `npm run docs-screenshots`
// copies the pictures of the last test run into docs/; tests/unit/docs-screenshots.test.ts fails
// when a shown source changed in a commit the screenshot's last commit does not contain.
// (Copying them on every test run is not an option: timings, seeds and scores differ each run,
// so docs/ would change with every run.)
import { copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Sources every screen of the UI shows: the frame around the tabs, and the styles. */
const UI_FRAME = ['renderer/src/App.tsx', 'renderer/src/components/Controls.tsx', 'renderer/src/styles.css'];

export interface DocScreenshot {
  /** The picture the README or a docs page shows. */
  doc: string;
  /** Where the test writes it. */
  artifact: string;
  /** The test that takes it. */
  test: string;
  /** The sources of what it shows. */
  shows: string[];
}

export const DOC_SCREENSHOTS: DocScreenshot[] = [
  {
    doc: 'docs/start.png',
    artifact: 'test-artifacts/ui/start-1280x800.png',
    test: 'tests/e2e/start-layout.test.ts',
    shows: [
      ...UI_FRAME,
      'renderer/src/components/LiveView.tsx',
      'electron/util/placement.ts',
      'electron/web/ui-layout.ts',
    ],
  },
  {
    doc: 'docs/ui-live.png',
    artifact: 'test-artifacts/ui/06-paused.png',
    test: 'tests/e2e/web-shell-ui.test.ts',
    shows: [
      ...UI_FRAME,
      'renderer/src/components/LiveView.tsx',
      'renderer/src/components/LatencySwitch.tsx',
      'renderer/src/components/RunTimingFigures.tsx',
    ],
  },
  {
    doc: 'docs/ui-replay.png',
    artifact: 'test-artifacts/ui/08-replay.png',
    test: 'tests/e2e/web-shell-ui.test.ts',
    shows: [...UI_FRAME, 'renderer/src/components/RunsView.tsx'],
  },
  {
    doc: 'docs/ui-record.png',
    artifact: 'test-artifacts/ui/11-record-tutorial.png',
    test: 'tests/e2e/web-shell-ui.test.ts',
    shows: [...UI_FRAME, 'renderer/src/components/RecordView.tsx'],
  },
  {
    doc: 'docs/ui-idc.png',
    artifact: 'test-artifacts/ui/14-idc.png',
    test: 'tests/e2e/web-shell-ui.test.ts',
    shows: [...UI_FRAME, 'renderer/src/components/IdcView.tsx'],
  },
  {
    doc: 'docs/ui-ingvp.png',
    artifact: 'test-artifacts/ui/ingvp.png',
    test: 'tests/e2e/ingvp-ui.test.ts',
    shows: [...UI_FRAME, 'renderer/src/components/IngvpView.tsx'],
  },
  {
    doc: 'docs/ui-takeover.png',
    artifact: 'test-artifacts/ui/takeover-replay.png',
    test: 'tests/e2e/takeover-ui.test.ts',
    shows: [...UI_FRAME, 'renderer/src/components/RunsView.tsx'],
  },
  {
    doc: 'docs/report.png',
    artifact: 'test-artifacts/report/report.png',
    test: 'tests/e2e/report.test.ts',
    shows: ['electron/report/html.ts'],
  },
];

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const only = process.argv.slice(2);
  let missing = 0;
  for (const s of DOC_SCREENSHOTS) {
    if (only.length && !only.includes(s.doc)) continue;
    const from = path.join(root, s.artifact);
    if (!existsSync(from)) {
      console.error(`${s.doc}: no ${s.artifact}; run ${s.test} first`);
      missing++;
      continue;
    }
    copyFileSync(from, path.join(root, s.doc));
    console.log(`${s.doc} ← ${s.artifact}`);
  }
  process.exit(missing ? 1 : 0);
}
