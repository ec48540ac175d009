/**
 * The option reference in docs/cli.md, generated from the commander declaration (program.ts), so
 * the two cannot drift: `npm run cli-reference` rewrites the section between the markers, and
 * tests/unit/cli.test.ts fails when docs/cli.md and the declaration disagree.
 */
import type { Command, Option } from 'commander';

export const REFERENCE_START =
  '<!-- cli-reference:start — generated from electron/cli/program.ts by `npm run cli-reference`; do not edit by hand -->';
export const REFERENCE_END = '<!-- cli-reference:end -->';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string) => `\`${s}\``;

function defaultText(o: Option): string {
  if (o.negate || (o.defaultValue === undefined && !o.defaultValueDescription)) return '';
  return code(
    o.defaultValueDescription ?? (typeof o.defaultValue === 'string' ? o.defaultValue : JSON.stringify(o.defaultValue)),
  );
}

function whatText(o: Option): string {
  const parts = [o.description];
  if (o.argChoices) parts.push(`one of ${o.argChoices.map(code).join(', ')}`);
  if (o.envVar) parts.push(`env ${code(o.envVar)}`);
  if (o.mandatory) parts.push('**required**');
  return parts.join('; ');
}

/** The usage line of a command: `gamepilot video [options] <dir>`, `gamepilot profile new [options]`. */
export function usageLine(cmd: Command): string {
  const names = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return `gamepilot ${names.join(' ')} ${cmd.usage()}`;
}

/** Every command that does something: a group's subcommands in its place. */
function leafCommands(program: Command): Command[] {
  return program.commands.flatMap((c) => (c.commands.length ? c.commands : [c]));
}

/** One markdown table per command: option, what it takes, default. */
export function optionReference(program: Command): string {
  const sections = leafCommands(program).map((cmd) => {
    // A former name (hidden from --help) is left out: the reference shows each option once, under its name.
    const rows = cmd.options
      .filter((o) => !o.hidden)
      .map((o) => `| ${code(o.flags)} | ${cell(whatText(o))} | ${defaultText(o)} |`);
    const args = cmd.registeredArguments.map(
      (a) => `| ${code(a.required ? `<${a.name()}>` : `[${a.name()}]`)} | ${cell(a.description)} | |`,
    );
    return [
      `#### ${code(usageLine(cmd))}`,
      '',
      cell(cmd.description()),
      '',
      '| option | what it takes | default |',
      '|---|---|---|',
      ...args,
      ...rows,
    ].join('\n');
  });
  return sections.join('\n\n');
}

/** `page` (docs/cli.md) with the section between the markers replaced by `reference`. */
export function withReference(readme: string, reference: string): string {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start)
    throw new Error(`docs/cli.md has no generated section (${REFERENCE_START} … ${REFERENCE_END})`);
  return `${readme.slice(0, start + REFERENCE_START.length)}\n\n${reference}\n\n${readme.slice(end)}`;
}
