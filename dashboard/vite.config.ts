// The dashboard's build: static files in dashboard/dist that the API serves at / under a strict CSP (no inline script
// or style, so nothing here may emit one). `tollgate-source` resolves @tollgate/contract to its TypeScript sources.
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

export default defineConfig({
  plugins: [preact()],
  resolve: { conditions: ['tollgate-source'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    target: 'es2022',
    reportCompressedSize: true,
    chunkSizeWarningLimit: 300,
  },
});
