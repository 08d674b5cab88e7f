// Types of scripts/layers.mjs (the table of layers, read by ESLint, the module-graph test and the README).
export interface Layer {
  name: string;
  folders: string[];
  mayImport: string[];
  entryPoints?: string[];
  publicSurface?: string;
  vscode?: boolean;
  browser?: boolean;
  about: string;
}
export const LAYOUT_BEGIN: string;
export const LAYOUT_END: string;
export function readLayers(): Layer[];
export function layerOf(path: string, layers?: Layer[]): Layer | undefined;
export function importViolation(importer: string, specifier: string, layers?: Layer[]): string | undefined;
export function layersPlugin(root?: string): { rules: Record<string, unknown> };
export function renderLayout(layers?: Layer[]): string;
export function readmeWithLayout(readme: string, layers?: Layer[]): string;
