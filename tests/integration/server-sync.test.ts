import { defineSyncTests, openTempDatabase } from '../support/server.ts';

defineSyncTests('embedded PGlite', openTempDatabase);
