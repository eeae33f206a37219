import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Built into web/dist, which `npm start` serves at / (scripts/local/web.ts) and the CDK stack uploads to S3
// (infra/web.ts). `npm run dev -w @hawk-api/web` proxies /api to a running `npm start` on port 3000.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 400 },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
