// Preload (CommonJS, sandboxed): exposes exactly one typed value to the dashboard, the admin token
// it needs for the management API. The renderer never gets Node or Electron APIs.
const electron = require('electron') as typeof import('electron');

const prefix = '--patchbay-admin-token=';
const token = process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length) ?? null;

electron.contextBridge.exposeInMainWorld('patchbay', { adminToken: token });
