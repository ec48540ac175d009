declare module 'screenshot-desktop' {
  function screenshot(options?: { format?: 'png' | 'jpg'; screen?: string | number }): Promise<Buffer>;
  export default screenshot;
}
