// Module resolution hook: importing `electron` fails, naming the importer.
export async function resolve(specifier, context, next) {
  if (specifier === 'electron' || specifier.startsWith('electron/'))
    throw new Error(`electron imported by ${context.parentURL}`);
  return next(specifier, context);
}
