import { CreateCompanies1763770000000 } from './1763770000000-CreateCompanies';
import { CreateGatewayConfigs1763780000000 } from './1763780000000-CreateGatewayConfigs';
import { CreateBlockedContacts1763785000000 } from './1763785000000-CreateBlockedContacts';
import { CreateCampaigns1763790000000 } from './1763790000000-CreateCampaigns';
import { CreateUserDatabases1763791000000 } from './1763791000000-CreateUserDatabases';
import { CreateWebhooks1763800000000 } from './1763800000000-CreateWebhooks';
import { CreateAutomations1763810000000 } from './1763810000000-CreateAutomations';
import { AddMonthDayRecordIndexes1763820000000 } from './1763820000000-AddMonthDayRecordIndexes';
import { RecordSystemContactsInBatches1763830000000 } from './1763830000000-RecordSystemContactsInBatches';
import { TrustworthySendOutcomes1763840000000 } from './1763840000000-TrustworthySendOutcomes';
import { GatewayEvents1763850000000 } from './1763850000000-GatewayEvents';
import { IdempotencyKeys1763860000000 } from './1763860000000-IdempotencyKeys';
import { RecordSentText1763870000000 } from './1763870000000-RecordSentText';
import { KeepNumbersSafe1763880000000 } from './1763880000000-KeepNumbersSafe';
import { BanSignals1763890000000 } from './1763890000000-BanSignals';
import { RetryFailed1763900000000 } from './1763900000000-RetryFailed';
import { TrustGatewayEvents1763910000000 } from './1763910000000-TrustGatewayEvents';
import { GatewayEventsIsolated1763920000000 } from './1763920000000-GatewayEventsIsolated';
import { WaitForInstance1763940000000 } from './1763940000000-WaitForInstance';
import { GatewayEventFaults1763950000000 } from './1763950000000-GatewayEventFaults';
import { GatewayEventsInTurn1763950000001 } from './1763950000001-GatewayEventsInTurn';
import { RoomForLeaseUpdates1763960000000 } from './1763960000000-RoomForLeaseUpdates';
import { PaceInstancesNotCampaigns1763970000000 } from './1763970000000-PaceInstancesNotCampaigns';
import { HearTheAnswer1763980000000 } from './1763980000000-HearTheAnswer';
import { SenderPools1763990000000 } from './1763990000000-SenderPools';
import { AutomationSenderPools1763991000000 } from './1763991000000-AutomationSenderPools';
import { LaunchDrafts1763992000000 } from './1763992000000-LaunchDrafts';
import { CampaignDeletions1763993000000 } from './1763993000000-CampaignDeletions';
import { FindCampaignContacts1763994000000 } from './1763994000000-FindCampaignContacts';
import { CampaignReportsAndListFilters1763995000000 } from './1763995000000-CampaignReportsAndListFilters';
import { ContactFilterIndexes1763996000000 } from './1763996000000-ContactFilterIndexes';
import { CloudApiProvider1763997000000 } from './1763997000000-CloudApiProvider';
import { TemplateCampaigns1763997500000 } from './1763997500000-TemplateCampaigns';
import { CloudAccountEvents1763998000000 } from './1763998000000-CloudAccountEvents';
import { CloudApiOutcomes1763999000000 } from './1763999000000-CloudApiOutcomes';
import { CloudApiCosts1763999500000 } from './1763999500000-CloudApiCosts';
import { CloudThroughputPacing1764000000000 } from './1764000000000-CloudThroughputPacing';
import { CountRecipientsOfCappedNumbersOnly1764003000000 } from './1764003000000-CountRecipientsOfCappedNumbersOnly';
import { FeedSystemContactsInCommitOrder1764004000000 } from './1764004000000-FeedSystemContactsInCommitOrder';

/** Every migration, in order. `npm run migration:generate` writes a file; add its class here. */
export const MIGRATIONS = [
  CreateCompanies1763770000000,
  CreateGatewayConfigs1763780000000,
  CreateBlockedContacts1763785000000,
  CreateCampaigns1763790000000,
  CreateUserDatabases1763791000000,
  CreateWebhooks1763800000000,
  CreateAutomations1763810000000,
  AddMonthDayRecordIndexes1763820000000,
  RecordSystemContactsInBatches1763830000000,
  TrustworthySendOutcomes1763840000000,
  GatewayEvents1763850000000,
  IdempotencyKeys1763860000000,
  RecordSentText1763870000000,
  KeepNumbersSafe1763880000000,
  BanSignals1763890000000,
  RetryFailed1763900000000,
  TrustGatewayEvents1763910000000,
  GatewayEventsIsolated1763920000000,
  WaitForInstance1763940000000,
  GatewayEventFaults1763950000000,
  GatewayEventsInTurn1763950000001,
  RoomForLeaseUpdates1763960000000,
  PaceInstancesNotCampaigns1763970000000,
  HearTheAnswer1763980000000,
  SenderPools1763990000000,
  AutomationSenderPools1763991000000,
  LaunchDrafts1763992000000,
  CampaignDeletions1763993000000,
  FindCampaignContacts1763994000000,
  CampaignReportsAndListFilters1763995000000,
  ContactFilterIndexes1763996000000,
  CloudApiProvider1763997000000,
  TemplateCampaigns1763997500000,
  CloudAccountEvents1763998000000,
  CloudApiOutcomes1763999000000,
  CloudApiCosts1763999500000,
  CloudThroughputPacing1764000000000,
  CountRecipientsOfCappedNumbersOnly1764003000000,
  FeedSystemContactsInCommitOrder1764004000000,
];
