// Vite bundles imported stylesheets; TypeScript only needs to know they exist.
declare module '*.css';
