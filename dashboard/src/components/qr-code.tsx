// A QR code drawn in the page as SVG from the text it encodes (qrcode-generator computes the modules): a 2FA secret
// must never reach a third-party image service, and the CSP allows no other host anyway.
import qrcode from 'qrcode-generator';
import { useMemo } from 'preact/hooks';

/** The quiet zone around the code, in modules, that scanners need (the QR specification asks for 4). */
const QUIET = 4;

/** One path of unit squares, one per dark module, in module coordinates (the quiet zone lies at negative ones). */
export function qrPath(text: string): { size: number; d: string } {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const size = qr.getModuleCount();
  const parts: string[] = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) if (qr.isDark(row, col)) parts.push(`M${col} ${row}h1v1h-1z`);
  }
  return { size, d: parts.join('') };
}

/** cell: pixels per module; a whole number keeps every module the same size on screen, which scanners like. */
export function QrCode(p: { text: string; label: string; cell?: number }) {
  const { size, d } = useMemo(() => qrPath(p.text), [p.text]);
  const box = size + 2 * QUIET;
  const px = box * (p.cell ?? 4);
  return (
    <svg class="qr" role="img" aria-label={p.label} width={px} height={px} viewBox={`${-QUIET} ${-QUIET} ${box} ${box}`} shape-rendering="crispEdges">
      <rect x={-QUIET} y={-QUIET} width={box} height={box} fill="#ffffff" />
      <path d={d} fill="#000000" />
    </svg>
  );
}
