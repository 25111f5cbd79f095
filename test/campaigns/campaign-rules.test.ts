// Quiet hours, the cap across campaigns, stopped people and nobody twice, on a few hundred people (scale.ts;
// the e2e suite runs 10,000).
import { campaignAtScale } from './scale.ts';

campaignAtScale(600);
