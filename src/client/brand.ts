/** The brand now lives on the bottom floor (src/errors/brand.ts), where every floor may import it. */
export { brandClass } from '../errors/brand.ts';
