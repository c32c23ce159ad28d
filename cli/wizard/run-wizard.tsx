// Renders the wizard on the terminal and resolves with its exit code. Ctrl-C exits Ink before any write
// starts, and writes rename temp files only at the end, so an interrupt leaves no half-written config.
import React from 'react';
import { render } from 'ink';
import { Wizard } from './Wizard.tsx';

export async function runWizard(dir: string, force: boolean): Promise<number> {
  let exitCode = 1;
  const app = render(
    <Wizard
      dir={dir}
      force={force}
      onExit={(code) => {
        exitCode = code;
        // Let Ink paint the last frame (the next commands) before unmounting.
        setTimeout(() => app.unmount(), 0);
      }}
    />,
  );
  await app.waitUntilExit();
  return exitCode;
}
