// The goal: a campaign of 10,000 people on the sandbox and the virtual clock (scale.ts).
import { campaignAtScale } from './scale.ts';

campaignAtScale(10_000);
