/**
 * What `botflow-engine/client` exported before 0.3 and no longer publishes: the client's parts that botflow
 * itself uses (operation table, zod schemas of every object, scheduler internals, limit helpers). Each
 * still works as before, marked deprecated, and goes in 0.4 (CHANGELOG.md). Use what src/client/index.ts
 * publishes instead; tell us on the issue tracker if you need one of these.
 */

export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BotApiCore,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  POLL_TIMEOUT_MARGIN_MS,
} from './client-core.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BUTTON_TYPES,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  COMMANDS_MAX,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  charLength,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  checkCommands,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  checkExactlyOne,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  checkNewCommentBody,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  checkNotEmpty,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  checkRange,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  fieldPath,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  WEBHOOK_SECRET,
} from './limits.ts';
export type {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  AttachmentInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ButtonInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  CallbackButtonInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ClipboardButtonInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  KeyboardInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  LinkButtonInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageButtonInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageTarget,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  NewCommentInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  NewMessageInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  OpenAppButtonInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  OperationArgsMap,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  OperationsWithoutArgTypes,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  RequestContactButtonInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  RequestGeoLocationButtonInput,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UndecodableUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UpdatesResult,
} from './operation-types.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type HttpMethod,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  isOperation,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  OPERATIONS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type OperationSpec,
} from './operations.ts';
export type {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  WaitSummary,
} from './scheduler/metrics.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  DEFAULT_SEND_LIMITS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  DEFAULT_TTL_MS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type LoggerLike,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type TimerFactory,
} from './scheduler/options.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  defaultPriority,
} from './scheduler/priorities.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  DEFAULT_NOT_READY_BUDGET_MS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type RetryOptions,
} from './scheduler/retry-policy.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BudgetExhausted,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type BudgetGrant,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  localSharedBudget,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type SharedBudget,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  withinBudget,
} from './scheduler/shared-budget.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  throttledClient,
} from './scheduler/throttled-client.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type ApiCaller,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type DeadLetterRecord,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  PRIORITIES,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type Task,
} from './scheduler/types.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  Attachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  AttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  AudioAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  AudioAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ContactAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ContactAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  FileAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  FileAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ImageAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ImageAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  InlineKeyboardAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  InlineKeyboardAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  LocationAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  LocationAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type MediaAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ShareAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ShareAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  StickerAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  StickerAttachmentRequest,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UnknownAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  VideoAttachment,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  VideoAttachmentRequest,
} from './schemas/attachments.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  int,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  obj,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  timestamp,
} from './schemas/common.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  decode,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  decodeUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  stripNulls,
} from './schemas/decode.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  CallbackButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ChatButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ClipboardButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  KEYBOARD_LIMITS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  KnownButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  LinkButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  OpenAppButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  RequestContactButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  RequestGeoLocationButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UnknownButton,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  WIDE_BUTTON_TYPES,
} from './schemas/keyboard.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  CommentList,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  CommentMessage,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  LinkedMessage,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MarkupElement,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageBody,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageList,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  NewCommentBody,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  NewMessageLink,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  PinnedMessageResult,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  Recipient,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  SendCommentResult,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  SendMessageResult,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  TEXT_MAX,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  TextFormat,
} from './schemas/messages.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  AdminPermission,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ASSIGNABLE_PERMISSIONS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BotInfo,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ChatAdmin,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ChatMember,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ChatMembersList,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ChatStatus,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ChatType,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  Command,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ErrorBody,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  Image,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  LEGACY_PERMISSIONS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ModifyMembersResult,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  PhotoTokens,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  SENDER_ACTIONS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  SenderAction,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  SimpleQueryResult,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  Subscription,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  SubscriptionList,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UPLOAD_TYPES,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UploadEndpoint,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UploadedInfo,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UploadType,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  VideoAttachmentDetails,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  VideoUrls,
} from './schemas/objects.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BotAddedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BotAdminPermissionsChangedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BotRemovedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BotStartedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  BotStoppedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  ChatTitleChangedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  CommentCreatedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  CommentEditedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  CommentRemovedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  DialogClearedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  DialogMutedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  DialogRemovedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  DialogUnmutedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  KnownUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageCallbackUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageCreatedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageEditedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  MessageRemovedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type UnknownUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UPDATE_TYPES,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UpdateList,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type UpdateOf,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type UpdateType,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UserAddedUpdate,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UserRemovedUpdate,
} from './schemas/updates.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type AgentOptions,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  createAgent,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  loadExtraCas,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  parseRetryAfter,
} from './transport.ts';
export {
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  DEFAULT_UPLOAD_ATTEMPTS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  UPLOAD_SIZE_LIMITS,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type UploadClient,
  /** @deprecated Internal to botflow: removed from botflow-engine/client in 0.4. */
  type UploadScheduler,
} from './upload.ts';
