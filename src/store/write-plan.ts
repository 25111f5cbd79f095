/** The write plan lives with the ports (both adapters apply it): ports/write-plan.ts. */
export * from './ports/write-plan.ts';
