package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/runlog"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// OutboxStore is what the relay reads and writes; *store.Store implements
// it.
type OutboxStore interface {
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.OutboxEntry, error)
	ReclaimExpiredLeases(ctx context.Context, now time.Time) (int, error)
	SettleOutbox(ctx context.Context, settlements ...store.Settlement) (int, error)
	OldestPendingOutbox(ctx context.Context) (oldest time.Time, ok bool, err error)
	NextDueOutbox(ctx context.Context) (next time.Time, ok bool, err error)
	PartnerEndpoints(ctx context.Context, partnerIDs ...string) (map[string]store.PartnerEndpoint, error)
	SaveBreaker(ctx context.Context, ep store.PartnerEndpoint, openedAt *time.Time) (bool, error)
	GetOutboxEntry(ctx context.Context, outboxID string) (store.OutboxEntry, error)
	PartnerPaused(ctx context.Context, partnerID string) (bool, error)
	ClaimPartnerDeliveries(ctx context.Context, until time.Time, claims ...store.PartnerClaim) error
	RecordPartnerAttempts(ctx context.Context, attempts ...store.PartnerAttempt) (int, error)
	ReleasePartnerClaims(ctx context.Context, claims ...store.PartnerAttempt) error
	HoldPartner(ctx context.Context, partnerID string, h store.Hold, now time.Time) (bool, error)
	ReserveSendSlot(ctx context.Context, partnerID string, now time.Time, interval, horizon time.Duration) (store.SendSlot, error)
	AcquireInFlight(ctx context.Context, partnerID string, limit int, token string, now, until time.Time) (bool, error)
	ReleaseInFlight(ctx context.Context, partnerID, token string) error
}

// Config wires a Relay.
type Config struct {
	// Store holds the outbox. Required.
	Store OutboxStore
	// Kafka delivers entries whose target_provider is "kafka". Required.
	Kafka KafkaDeliverer
	// Partners are the partner endpoints by id (target_provider), when
	// they are fixed (the partners file, tests); Directory, when set,
	// gives them instead.
	Partners map[string]Partner
	// Directory gives the partners as they are now, read once per batch
	// (partners managed at run time). nil: Partners.
	Directory PartnerDirectory
	// PartnerDeliverer sends partner deliveries.
	PartnerDeliverer PartnerDeliverer
	// BatchSize is how many entries one claim takes. Default 100: one claim
	// and one settle per hundred entries.
	BatchSize int
	// Lease is how long a claim holds its entries; it must outlast a batch
	// (PartnerConcurrency deliveries at a time, each up to the delivery
	// timeout). Default 2 minutes.
	Lease time.Duration
	// SafetyMargin is how long before the invocation deadline the relay
	// stops claiming, so a batch in flight can settle. Default
	// DefaultSafetyMargin.
	SafetyMargin time.Duration
	// Period is the period of the schedule that invokes the relay (env
	// STREAMOPS_SCHEDULE_PERIOD, set from the same value as the schedule).
	// When set, a run keeps serving: it delivers what is due, sleeps until
	// the next entry falls due (or Poll), and goes on until Handover before
	// the next run starts, so a retry goes out when it is due (seed 000's
	// 5, 10, 20, 40 s), not at the next tick. The function's timeout must
	// cover Period plus SafetyMargin (RunTimeout). Zero: a run delivers
	// what is due and returns.
	Period time.Duration
	// Handover is how long before the next scheduled run a serving run
	// stops claiming, so the two never overlap. Default 500 ms: what is
	// due in it waits at most that for the next run.
	Handover time.Duration
	// Poll is the longest a serving run sleeps before looking again, so
	// entries enqueued meanwhile go out within it. Default 1 s.
	Poll time.Duration
	// Batches is how many claimed batches a run delivers at once, so an
	// entry falling due while a slow delivery (up to its timeout) holds a
	// batch still goes out on time. Default 4.
	Batches int
	// PartnerConcurrency is how many deliveries to one partner run at once.
	// Default 4: enough to drain a batch within its lease, few enough that
	// a struggling partner sees few requests before its breaker opens.
	PartnerConcurrency int
	// Breaker tunes the per-partner circuit breaker.
	Breaker BreakerConfig
	// GateWait is the longest a send waits for its partner's rate limit
	// slot or an in-flight place (maxInFlight); beyond it the entry is
	// deferred without using an attempt. Default 3 s: short beside the
	// claim's lease and the safety margin.
	GateWait time.Duration
	// DisabledRecheck is how long the claimed entries of a disabled
	// partner are deferred before the relay looks again. Default 1 min.
	DisabledRecheck time.Duration
	// Disabler disables a partner whose every delivery has failed for
	// DisableAfter (the partner registry). nil: no auto-disable, and no
	// partner.failing warnings.
	Disabler PartnerDisabler
	// DisableAfter is how long every delivery to a partner may fail
	// before Disabler disables it, with partner.failing warnings at 50
	// and 90 % of it (env STREAMOPS_PARTNER_DISABLE_AFTER). Default
	// DefaultDisableAfter: 5 days, as Svix, long enough to outlast a
	// partner's weekend outage.
	DisableAfter time.Duration
	// MaxHold bounds backpressure: the longest hold one Retry-After sets,
	// and how long an entry may be throttled before a throttle counts as
	// a failure (env STREAMOPS_PARTNER_MAX_HOLD). Default DefaultMaxHold.
	MaxHold time.Duration
	// Backoff spaces Kafka retries. Default exponential from 5 s, factor 2,
	// cap 15 min, full jitter.
	Backoff backoff.Policy
	// PartnerBackoff spaces partner retries. Default seed 000's gaps (5, 10,
	// 20, 40 s), so resilienceAttemptCount shows the seed's pattern.
	PartnerBackoff backoff.Policy
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives progress and failures. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives delivery counts and OldestPendingOutboxAgeSeconds.
	Metrics *metrics.Recorder
	// Operations emits the operational events the relay sees: a partner's
	// breaker opened or closed, an entry dead-lettered, a partner failing
	// or disabled. nil: none.
	Operations *opsevents.Emitter
}

func (c *Config) setDefaults() {
	if c.BatchSize <= 0 {
		c.BatchSize = 100
	}
	if c.Lease <= 0 {
		c.Lease = 2 * time.Minute
	}
	if c.SafetyMargin <= 0 {
		c.SafetyMargin = DefaultSafetyMargin
	}
	if c.Handover <= 0 {
		c.Handover = 500 * time.Millisecond
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Batches <= 0 {
		c.Batches = 4
	}
	if c.PartnerConcurrency <= 0 {
		c.PartnerConcurrency = 4
	}
	c.Breaker.setDefaults()
	if c.GateWait <= 0 {
		c.GateWait = 3 * time.Second
	}
	if c.MaxHold <= 0 {
		c.MaxHold = DefaultMaxHold
	}
	if c.DisabledRecheck <= 0 {
		c.DisabledRecheck = time.Minute
	}
	if c.DisableAfter <= 0 {
		c.DisableAfter = DefaultDisableAfter
	}
	if c.Backoff == nil {
		c.Backoff = backoff.Exponential{Base: 5 * time.Second, Factor: 2, Max: 15 * time.Minute, Jitter: 1}
	}
	if c.PartnerBackoff == nil {
		c.PartnerBackoff = backoff.PartnerGaps
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Validate reports the first missing field.
func (c Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("outbox: Config.Store is required")
	case c.Kafka.Publisher == nil:
		return errors.New("outbox: Config.Kafka.Publisher is required")
	case c.Period < 0:
		return errors.New("outbox: Config.Period must not be negative")
	case (len(c.Partners) > 0 || c.Directory != nil) && c.PartnerDeliverer.Secrets == nil:
		return errors.New("outbox: Config.PartnerDeliverer.Secrets is required when partners are configured")
	case len(c.Partners) > 0 && c.Directory != nil:
		return errors.New("outbox: Config.Partners and Config.Directory are exclusive")
	}
	for id, p := range c.Partners {
		if err := p.validate(); err != nil {
			return fmt.Errorf("outbox: partner %q: %w", id, err)
		}
	}
	return nil
}

// DefaultSafetyMargin is how long before its deadline a run stops
// claiming by default: more than one partner delivery's timeout, so the
// batch in flight settles.
const DefaultSafetyMargin = 15 * time.Second

// RunTimeout is the invocation timeout a relay scheduled every period
// needs: its serving window plus DefaultSafetyMargin for the batch in
// flight. The CDK stack and the local stack both derive the function's
// timeout from it.
func RunTimeout(period time.Duration) time.Duration { return period + DefaultSafetyMargin }

// Relay delivers the outbox. Safe to run concurrently with other relays:
// claims are exclusive.
type Relay struct {
	cfg   Config
	holds holds
}

// New returns a Relay.
func New(cfg Config) (*Relay, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Directory == nil {
		cfg.Directory = StaticPartners(cfg.Partners)
	}
	return &Relay{cfg: cfg}, nil
}

// Stats counts what a run did.
type Stats struct {
	Batches      int `json:"batches"`
	Claimed      int `json:"claimed"`
	Delivered    int `json:"delivered"`
	Retried      int `json:"retried"`
	DeadLettered int `json:"deadLettered"`
	Deferred     int `json:"deferred"`
	Throttled    int `json:"throttled"`
	Reclaimed    int `json:"reclaimed"`
}

func (s *Stats) add(o Stats) {
	s.Batches += o.Batches
	s.Claimed += o.Claimed
	s.Delivered += o.Delivered
	s.Retried += o.Retried
	s.DeadLettered += o.DeadLettered
	s.Deferred += o.Deferred
	s.Throttled += o.Throttled
}

// Run is Serve for an invocation whose scheduled time is unknown.
func (r *Relay) Run(ctx context.Context) (Stats, error) { return r.Serve(ctx, time.Time{}) }

// Serve is one scheduled run, for the schedule's firing at scheduled (zero
// when unknown): it reclaims expired leases, then claims due batches and
// delivers up to Batches of them at once until nothing is due. With a
// Period it goes on serving, waking when the next entry falls due or a
// batch settles, until its window ends (see window); it always stops
// claiming when the context's deadline minus the safety margin is near,
// and returns once the batches in flight have settled. It logs the counts.
func (r *Relay) Serve(ctx context.Context, scheduled time.Time) (Stats, error) {
	var total Stats
	until, serving := r.window(r.cfg.Now(), scheduled)
	n, err := r.cfg.Store.ReclaimExpiredLeases(ctx, r.cfg.Now())
	if err != nil {
		return total, err
	}
	total.Reclaimed = n
	var (
		mu      sync.Mutex
		errs    []error
		wg      sync.WaitGroup
		slots   = make(chan struct{}, r.cfg.Batches)
		settled = make(chan struct{}, r.cfg.Batches)
	)
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return len(errs) > 0 }
	open := func() bool {
		return !failed() && deadline.Left(ctx, r.cfg.SafetyMargin) && (!serving || r.cfg.Now().Before(until))
	}
	for open() {
		select {
		case slots <- struct{}{}:
		case <-settled:
			continue // a slot is free again
		}
		claimed, err := r.claimDue(ctx, r.cfg.Now())
		if err != nil {
			<-slots
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			break
		}
		if len(claimed) > 0 {
			wg.Go(func() {
				st, err := r.deliverBatch(ctx, claimed)
				mu.Lock()
				total.add(st)
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
				r.cfg.Logger.InfoContext(ctx, "outbox batch settled", "claimed", st.Claimed, "delivered", st.Delivered,
					"retried", st.Retried, "deadLettered", st.DeadLettered, "deferred", st.Deferred, "throttled", st.Throttled)
				<-slots
				select {
				case settled <- struct{}{}:
				default:
				}
			})
			continue
		}
		<-slots
		if !serving {
			break
		}
		wake, err := r.nextWake(ctx, until)
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			break
		}
		if !deadline.SleepOr(ctx, wake.Sub(r.cfg.Now()), settled) {
			break
		}
	}
	wg.Wait()
	r.report(ctx, total)
	return total, errors.Join(errs...)
}

// window is when a run that started at start, for the firing at
// scheduled, stops claiming: Handover before the next firing, Period after
// this one. The firing's time (whole seconds in the scheduled event)
// anchors a run that started over a second late, so a late run does not
// push its window into the next run's. serving is false without a Period,
// or when the window is already over: the run delivers what is due and
// returns.
func (r *Relay) window(start, scheduled time.Time) (until time.Time, serving bool) {
	if r.cfg.Period <= 0 {
		return time.Time{}, false
	}
	anchor := start
	if !scheduled.IsZero() && scheduled.Add(time.Second).Before(start) {
		anchor = scheduled.Add(time.Second)
	}
	until = anchor.Add(r.cfg.Period - r.cfg.Handover)
	return until, until.After(start)
}

// nextWake is when a serving run looks again: when the next waiting entry
// falls due, at most Poll from now (entries enqueued meanwhile), and no
// later than until.
func (r *Relay) nextWake(ctx context.Context, until time.Time) (time.Time, error) {
	wake := r.cfg.Now().Add(r.cfg.Poll)
	next, ok, err := r.cfg.Store.NextDueOutbox(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if ok && next.Before(wake) {
		wake = next
	}
	if until.Before(wake) {
		wake = until
	}
	return wake, nil
}

func (r *Relay) report(ctx context.Context, st Stats) {
	// An idle run: nothing reclaimed, claimed or deferred.
	runlog.Finished(ctx, r.cfg.Logger, st == (Stats{}), "outbox relay run finished", "stats", st)
	ms := []metrics.Metric{
		{Name: "OutboxDelivered", Unit: metrics.Count, Value: float64(st.Delivered)},
		{Name: "OutboxRetried", Unit: metrics.Count, Value: float64(st.Retried)},
		{Name: "OutboxDeadLettered", Unit: metrics.Count, Value: float64(st.DeadLettered)},
	}
	if oldest, ok, err := r.cfg.Store.OldestPendingOutbox(ctx); err == nil {
		age := 0.0
		if ok {
			age = r.cfg.Now().Sub(oldest).Seconds()
		}
		ms = append(ms, metrics.Metric{Name: "OldestPendingOutboxAgeSeconds", Unit: metrics.Seconds, Value: age})
	}
	r.cfg.Metrics.Record(ms...)
}

// outcome is how one claimed entry's attempt ended.
type outcome struct {
	entry     Entry
	err       error     // nil: delivered
	deferTill time.Time // set: not attempted (paused, held, breaker open, gate)
	holdTill  time.Time // set: throttled, retried then
	attempted bool
	at        time.Time // when the attempt ended (attempted only)
	attempt   *Attempt  // a partner attempt, for the delivery log
	// release gives back what the gate took for the send (gateControl).
	release func()
}

// RunBatch claims one batch, delivers it and settles it.
func (r *Relay) RunBatch(ctx context.Context) (Stats, error) {
	claimed, err := r.claimDue(ctx, r.cfg.Now())
	if err != nil || len(claimed) == 0 {
		return Stats{}, err
	}
	return r.deliverBatch(ctx, claimed)
}

// deliverBatch delivers a claimed batch: the Kafka entries with one flush,
// each partner's entries a few at a time. Each of those groups settles as
// soon as it is done (one bulk write), so a slow partner holds back only
// its own entries, and each attempt's retry is scheduled from when it
// ended.
func (r *Relay) deliverBatch(ctx context.Context, claimed []Entry) (Stats, error) {
	st := Stats{Batches: 1, Claimed: len(claimed)}
	partners, err := r.cfg.Directory.Partners(ctx)
	if err != nil {
		return st, fmt.Errorf("outbox: read the partners: %w", err) // the claims lapse with their lease; a later run reclaims them
	}

	var kafka, unknown []int
	byPartner := map[string][]int{}
	outcomes := make([]outcome, len(claimed))
	for i, e := range claimed {
		outcomes[i].entry = e
		switch _, partner := partners[e.Target]; {
		case e.Target == TargetKafka:
			kafka = append(kafka, i)
		case partner:
			byPartner[e.Target] = append(byPartner[e.Target], i)
		default:
			outcomes[i].err = &DeliveryError{Err: fmt.Errorf("%w %q", errNoTarget, e.Target)}
			unknown = append(unknown, i)
		}
	}

	var brk *breakers
	if len(byPartner) > 0 {
		ids := make([]string, 0, len(byPartner))
		for id := range byPartner {
			ids = append(ids, id)
		}
		loaded, err := r.loadBreakers(ctx, ids)
		if err != nil {
			return st, err // the claims lapse with their lease; a later run reclaims them
		}
		brk = newBreakers(r.cfg.Breaker, loaded)
		if err := r.recordPartnerEvents(ctx, partners, claimed, byPartner); err != nil {
			return st, err // the claims lapse with their lease; a later run reclaims them
		}
	}

	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	settleGroup := func(idx []int) {
		group := make([]outcome, len(idx))
		for j, i := range idx {
			group[j] = outcomes[i]
		}
		var part Stats
		err := r.settleOutcomes(ctx, partners, group, &part)
		mu.Lock()
		st.add(part)
		if err != nil {
			errs = append(errs, err)
		}
		mu.Unlock()
	}
	if len(kafka) > 0 {
		wg.Go(func() {
			batch := make([]Entry, len(kafka))
			for j, i := range kafka {
				batch[j] = claimed[i]
			}
			errs := r.cfg.Kafka.DeliverAll(ctx, batch)
			at := r.cfg.Now()
			for j, err := range errs {
				o := &outcomes[kafka[j]]
				o.err, o.attempted, o.at = delivered(err), true, at
			}
			settleGroup(kafka)
		})
	}
	for id, idx := range byPartner {
		wg.Go(func() {
			r.deliverToPartner(ctx, partners[id], idx, outcomes, brk)
			settleGroup(idx)
		})
	}
	if len(unknown) > 0 {
		settleGroup(unknown)
	}
	wg.Wait()
	if brk != nil {
		if err := r.saveBreakers(ctx, brk.dirty()); err != nil {
			errs = append(errs, err)
		}
	}
	return st, errors.Join(errs...)
}

// settleOutcomes records a group's outcomes: the outbox settlements with
// one bulk write, then the partner attempts, then the partner deliveries
// claimed but not attempted leave PROCESSING.
func (r *Relay) settleOutcomes(ctx context.Context, partners map[string]Partner, group []outcome, st *Stats) error {
	settlements, attempts, released, dls := r.settle(ctx, partners, group, st)
	settled, err := r.cfg.Store.SettleOutbox(ctx, settlements...)
	if err != nil {
		return err
	}
	r.reportDeadLetters(ctx, dls, settled, len(settlements))
	if len(attempts) > 0 {
		if _, err := r.cfg.Store.RecordPartnerAttempts(ctx, attempts...); err != nil {
			return err
		}
	}
	return r.cfg.Store.ReleasePartnerClaims(ctx, released...)
}

// settle turns outcomes into outbox settlements, partner attempt records,
// the partner claims to release (claimed, not attempted) and the dead
// letters to report; a retry is due its delay after the attempt ended.
func (r *Relay) settle(ctx context.Context, partners map[string]Partner, outcomes []outcome, st *Stats) ([]store.Settlement, []store.PartnerAttempt, []store.PartnerAttempt, []deadLetter) {
	settlements := make([]store.Settlement, 0, len(outcomes))
	var attempts, released []store.PartnerAttempt
	var dls []deadLetter
	for _, o := range outcomes {
		e := o.entry
		now := o.at
		if now.IsZero() {
			now = r.cfg.Now()
		}
		_, partner := partners[e.Target]
		policy := r.cfg.Backoff
		if partner {
			policy = r.cfg.PartnerBackoff
		}
		out, next := e.outcome(o.err, o.deferTill, o.holdTill, partner, policy, now)
		var errMsg string
		switch out {
		case status.OutcomeDeferred:
			st.Deferred++
		case status.OutcomeThrottled:
			st.Throttled++
		case status.OutcomeDelivered:
			st.Delivered++
		case status.OutcomeRetry:
			errMsg = fault.Text(o.err)
			st.Retried++
		default:
			errMsg = fault.Text(o.err)
			st.DeadLettered++
			r.cfg.Logger.WarnContext(e.Context(ctx), "outbox entry dead-lettered", "outboxId", e.ID, "target", e.Target,
				"attempts", e.Attempts, "error", o.err)
		}
		var a *Attempt
		if partner && o.attempted {
			a = o.attempt
		}
		stl := e.settlement(out, next, errMsg, a)
		if out == status.OutcomeThrottled {
			stl.ThrottledSince = now
			if e.ThrottledSince != nil {
				stl.ThrottledSince = *e.ThrottledSince
			}
		}
		if out == status.OutcomeDeadLettered {
			dls = append(dls, newDeadLetter(e.Context(ctx), e, errMsg, a, now))
		}
		settlements = append(settlements, stl)
		switch {
		case !partner:
		case o.attempted && out != status.OutcomeThrottled && e.attemptRecorded():
			attempts = append(attempts, partnerAttempt(partners[e.Target], e, now, e.attemptStatus(out)))
		default:
			released = append(released, partnerAttempt(partners[e.Target], e, now, ""))
		}
	}
	return settlements, attempts, released, dls
}

// recordPartnerEvents marks every partner delivery of the batch PROCESSING
// in its seed-000 OUT document (stored first when new) until the claim's
// lease ends, with one bulk write: what is being sent is never "Failed
// Events for Retry".
func (r *Relay) recordPartnerEvents(ctx context.Context, partners map[string]Partner, claimed []Entry, byPartner map[string][]int) error {
	var claims []store.PartnerClaim
	for id, idx := range byPartner {
		for _, i := range idx {
			claims = append(claims, store.PartnerClaim{Event: partnerEvent(partners[id], claimed[i]), FirstOfRound: claimed[i].Attempts == 1})
		}
	}
	return r.cfg.Store.ClaimPartnerDeliveries(ctx, r.cfg.Now().Add(r.cfg.Lease), claims...)
}
