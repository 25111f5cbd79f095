/** The campaigns' port and rows live with the other ports: ports/campaigns.ts. */
export type * from '../ports/campaigns.ts';
