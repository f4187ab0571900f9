import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by core at /ui/ (deep paths fall back to index.html there), same origin as /api. In
// development the dev server proxies /api to a running `patchbay serve` (PATCHBAY_URL overrides
// the default address), so the session cookie and the Origin check behave as in production.
const target = process.env.PATCHBAY_URL ?? 'http://127.0.0.1:8790';

export default defineConfig({
  root: import.meta.dirname,
  base: '/ui/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Inline assets would become data: URLs for scripts or fonts, which the CSP refuses; keep files.
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      '/api': {
        target,
        changeOrigin: true,
        // Core refuses writes whose Origin is not its own; the dev server's origin is not.
        configure: (proxy) => proxy.on('proxyReq', (req) => {
          if (req.getHeader('origin')) req.setHeader('origin', target);
        }),
      },
    },
  },
});
