import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import './styles.css';
import { labelTableCells } from './tableLabels.ts';

const root = document.getElementById('root')!;
labelTableCells(root);
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
