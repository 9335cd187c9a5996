package events

// The payloads of the operational events (issue 27): what happened to a
// partner's deliveries that an operator may want to alarm on. They travel
// on TopicOperations keyed by PartnerID and are stored in the history like
// every event.

// PartnerPausedPayload is the payload of partner.paused: an operator held
// a partner's deliveries; Backlog entries wait for the resume.
type PartnerPausedPayload struct {
	PartnerID string `json:"partnerId"`
	By        string `json:"by"` // who paused it (the API key's name, the CLI user)
	Reason    string `json:"reason,omitempty"`
	At        Time   `json:"at"`
	Backlog   int    `json:"backlog"` // entries waiting for the partner when it was paused
}

// EventType is PartnerPaused.
func (PartnerPausedPayload) EventType() Type { return PartnerPaused }

// PartnerResumedPayload is the payload of partner.resumed: the partner's
// held deliveries go out again.
type PartnerResumedPayload struct {
	PartnerID string `json:"partnerId"`
	By        string `json:"by"`
	At        Time   `json:"at"`
	PausedAt  *Time  `json:"pausedAt,omitempty"` // when the pause it ends began
	Backlog   int    `json:"backlog"`            // entries waiting when it was resumed
}

// EventType is PartnerResumed.
func (PartnerResumedPayload) EventType() Type { return PartnerResumed }

// PartnerBreakerOpenedPayload is the payload of partner.breaker.opened:
// consecutive failures opened the partner's circuit breaker, so nothing is
// sent to it until OpenUntil. Emitted once per opening (a half-open probe
// that fails opens it again: a new opening).
type PartnerBreakerOpenedPayload struct {
	PartnerID           string `json:"partnerId"`
	OpenedAt            Time   `json:"openedAt"`
	OpenUntil           Time   `json:"openUntil"`
	ConsecutiveFailures int    `json:"consecutiveFailures"`
	LastError           string `json:"lastError,omitempty"` // the failure that opened it
}

// EventType is PartnerBreakerOpened.
func (PartnerBreakerOpenedPayload) EventType() Type { return PartnerBreakerOpened }

// PartnerBreakerClosedPayload is the payload of partner.breaker.closed: a
// delivery to a partner whose breaker was open succeeded, so it is closed.
type PartnerBreakerClosedPayload struct {
	PartnerID string `json:"partnerId"`
	ClosedAt  Time   `json:"closedAt"`
	OpenedAt  *Time  `json:"openedAt,omitempty"` // when the opening it ends began
}

// EventType is PartnerBreakerClosed.
func (PartnerBreakerClosedPayload) EventType() Type { return PartnerBreakerClosed }

// PartnerThrottledPayload is the payload of partner.throttled: the partner
// answered 429 or 503 with Retry-After, so its deliveries are held until
// HoldUntil without using an attempt.
type PartnerThrottledPayload struct {
	PartnerID  string `json:"partnerId"`
	OutboxID   string `json:"outboxId"`   // the delivery that got the answer
	StatusCode int    `json:"statusCode"` // 429 or 503
	RetryAfter string `json:"retryAfter"` // the Retry-After header as sent
	HoldUntil  Time   `json:"holdUntil"`
}

// EventType is PartnerThrottled.
func (PartnerThrottledPayload) EventType() Type { return PartnerThrottled }

// DeliveryDeadLetteredPayload is the payload of delivery.dead_lettered: an
// outbox entry used its last attempt and is dead-lettered, with the last
// answer it got.
type DeliveryDeadLetteredPayload struct {
	OutboxID  string `json:"outboxId"`
	PartnerID string `json:"partnerId"`
	// OutboxEventType is the JSON "eventType": the type of the event the
	// entry delivers (named apart from the EventType method, as
	// WebhookReceivedPayload.ProviderEventType is).
	OutboxEventType string `json:"eventType"`
	Attempts        int    `json:"attempts"`
	StatusCode      int    `json:"statusCode,omitempty"` // absent when no answer came (a timeout, a refused connection)
	Error           string `json:"error"`
	// ResponseBody is the start of the last answer's body (at most 1024
	// bytes, valid UTF-8), when there was one.
	ResponseBody   string `json:"responseBody,omitempty"`
	DeadLetteredAt Time   `json:"deadLetteredAt"`
}

// EventType is DeliveryDeadLettered.
func (DeliveryDeadLetteredPayload) EventType() Type { return DeliveryDeadLettered }

// PartnerFailingPayload is the payload of partner.failing: every delivery
// to the partner has failed since FailingSince, for Percent (50, then 90)
// of the period after which it is disabled (DisableAt). Once per
// threshold and failing run.
type PartnerFailingPayload struct {
	PartnerID      string `json:"partnerId"`
	FailingSince   Time   `json:"failingSince"`
	Percent        int    `json:"percent"`
	DisableAfterMs int64  `json:"disableAfterMs"` // the period
	DisableAt      Time   `json:"disableAt"`      // when the failures, going on, disable it
	LastError      string `json:"lastError,omitempty"`
	At             Time   `json:"at"`
}

// EventType is PartnerFailing.
func (PartnerFailingPayload) EventType() Type { return PartnerFailing }

// PartnerDisabledPayload is the payload of partner.disabled: nothing is
// sent to the partner any more, its waiting deliveries stay, until it is
// enabled. The auto-disable fills FailingSince, LastError and
// DisableAfterMs (every delivery failed for that period).
type PartnerDisabledPayload struct {
	PartnerID      string `json:"partnerId"`
	Reason         string `json:"reason"`
	By             string `json:"by"` // "outbox-relay" for the auto-disable, else the operator
	FailingSince   *Time  `json:"failingSince,omitempty"`
	LastError      string `json:"lastError,omitempty"`
	DisableAfterMs int64  `json:"disableAfterMs,omitempty"`
	DisabledAt     Time   `json:"disabledAt"`
}

// EventType is PartnerDisabled.
func (PartnerDisabledPayload) EventType() Type { return PartnerDisabled }

// PartnerEnabledPayload is the payload of partner.enabled: a disabled
// partner's deliveries go out again, its Backlog drains under its limits.
type PartnerEnabledPayload struct {
	PartnerID  string `json:"partnerId"`
	By         string `json:"by"`
	At         Time   `json:"at"`
	DisabledAt *Time  `json:"disabledAt,omitempty"` // when the disable it ends began
	Backlog    int    `json:"backlog"`              // entries waiting when it was enabled
}

// EventType is PartnerEnabled.
func (PartnerEnabledPayload) EventType() Type { return PartnerEnabled }

// SubjectErasedPayload is the payload of subject.erased: an operator
// erased the personal data of the data subjects Subjects (POST
// /api/subjects/erase), so no copy of it opens anywhere again. It names
// how the subject was asked for (Request: email, phone or subjectId),
// never the email or phone number itself.
type SubjectErasedPayload struct {
	ReceiptID string               `json:"receiptId"`
	Request   string               `json:"request"`
	By        string               `json:"by"`
	ErasedAt  Time                 `json:"erasedAt"`
	Subjects  []ErasedSubjectEntry `json:"subjects"`
}

// ErasedSubjectEntry is one subject generation an erasure destroyed.
type ErasedSubjectEntry struct {
	SubjectID  string `json:"subjectId"`
	Generation int    `json:"generation"`
}

// EventType is SubjectErased.
func (SubjectErasedPayload) EventType() Type { return SubjectErased }
