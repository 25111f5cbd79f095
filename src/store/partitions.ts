/** The partitions are shared by both adapters: ports/partitions.ts. */
export * from './ports/partitions.ts';
