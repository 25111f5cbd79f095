// Line icons drawn here (no icon font, no emoji: they look the same on every machine).
import { svg } from './dom.js';

const PATHS = {
  attach: ['M8 13V7a4 4 0 0 1 8 0v9a6 6 0 0 1-12 0V9', 'M12 8v8'],
  contact: ['M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M4 21c0-4 3.6-6 8-6s8 2 8 6'],
  location: [
    'M12 22s7-6.5 7-12a7 7 0 0 0-14 0c0 5.5 7 12 7 12z',
    'M12 12.5a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z',
  ],
  send: ['M4 12 20 4l-5 16-3-7z', 'M12 13l8-9'],
  file: ['M6 2h8l5 5v15H6z', 'M14 2v5h5'],
  bell: ['M6 16v-5a6 6 0 0 1 12 0v5l2 2H4z', 'M10 20a2 2 0 0 0 4 0'],
  close: ['M6 6l12 12', 'M18 6 6 18'],
  link: ['M14 4h6v6', 'M20 4l-9 9', 'M18 14v6H4V6h6'],
  chat: ['M4 5h16v11H9l-5 4z'],
  warning: ['M12 3 2 21h20z', 'M12 10v5', 'M12 18v.5'],
  key: ['M8 15a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M12 11h9', 'M18 11v3', 'M21 11v2'],
};

/** An icon by name, sized by the surrounding font. */
export function icon(name, label) {
  return svg(
    'svg',
    {
      class: `icon icon-${name}`,
      viewBox: '0 0 24 24',
      width: '1em',
      height: '1em',
      fill: 'none',
      stroke: 'currentColor',
      'stroke-width': 2,
      'stroke-linecap': 'round',
      'stroke-linejoin': 'round',
      'aria-hidden': label ? undefined : 'true',
      role: label ? 'img' : undefined,
      'aria-label': label,
    },
    (PATHS[name] ?? []).map((d) => svg('path', { d })),
  );
}
