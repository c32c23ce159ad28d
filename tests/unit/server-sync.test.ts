import { defineSyncTests, openTempDatabase } from './server-support.ts';

defineSyncTests('embedded PGlite', openTempDatabase);
