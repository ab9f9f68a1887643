// Vite turns `import './x.css'` into a stylesheet; TypeScript only needs to know it is allowed.
declare module '*.css'
