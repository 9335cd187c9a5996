package loadprobe

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamops/streamops/internal/provider"
)

// DefaultSenders is how many deliveries a Probe keeps in flight unless
// told otherwise: the 8 concurrent senders.
const DefaultSenders = 8

// Kind is one sort of webhook the probe sends: a provider's signed
// delivery of a fresh body.
type Kind struct {
	// Provider signs the deliveries (provider.Provider.Sign); its name is
	// the path, /webhooks/<name>.
	Provider *provider.Provider
	// Secret is the provider's webhook secret on the stack under test.
	Secret string
	// Body returns a fresh event, created at now: its id must be new on
	// each call, or every delivery after the first is a duplicate.
	Body func(now time.Time) []byte
}

// Probe sends signed webhooks to BaseURL from Senders goroutines and
// times each answer.
type Probe struct {
	// BaseURL is the stack's address (http://127.0.0.1:8080).
	BaseURL string
	// Kinds are the webhooks sent, in turn: delivery i is Kinds[i%len].
	Kinds []Kind
	// Senders is how many deliveries are in flight at once. Default
	// DefaultSenders.
	Senders int
	// Redeliveries is the share (0 to 1) of deliveries that send an
	// earlier delivery's event again, signed anew, as a provider retrying
	// does: the stack answers them 200, a duplicate.
	Redeliveries float64
	// Rate, when positive, is how many deliveries per second all senders
	// together start, at even intervals; 0 sends as fast as the senders'
	// answers come.
	Rate float64
	// Client sends the requests. Default a client with a 30 s timeout and
	// enough idle connections for every sender.
	Client *http.Client

	mu   sync.Mutex
	sent []sentEvent // what a re-delivery may send again
	n    int         // deliveries started over the probe's life
}

// sentEvent is a delivery's event, kept for a re-delivery.
type sentEvent struct {
	kind int
	body []byte
}

// Result is one delivery's outcome.
type Result struct {
	// Latency is from sending the request to reading the whole answer.
	Latency time.Duration
	// Status is the answer's HTTP status; 0 when none came (Err says why).
	Status int
	// Redelivery marks an event sent before.
	Redelivery bool
	// Err is a transport error.
	Err error
}

// OK reports whether the stack took the delivery: 202, accepted, or 200,
// a duplicate of one it took before.
func (r Result) OK() bool {
	return r.Err == nil && (r.Status == http.StatusAccepted || r.Status == http.StatusOK)
}

// Report is what a run of the probe measured.
type Report struct {
	// Results are every delivery's, in the order they were answered.
	Results []Result
	// Elapsed is the run's wall time, from the first request to the last
	// answer.
	Elapsed time.Duration
}

// Deliveries is the number of deliveries answered (or failed).
func (r Report) Deliveries() int { return len(r.Results) }

// Errors counts the deliveries the stack did not take (Result.OK).
func (r Report) Errors() int {
	n := 0
	for _, res := range r.Results {
		if !res.OK() {
			n++
		}
	}
	return n
}

// PerSecond is the deliveries answered per second of Elapsed.
func (r Report) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(len(r.Results)) / r.Elapsed.Seconds()
}

// Latencies are the deliveries' latencies, sorted.
func (r Report) Latencies() []time.Duration {
	out := make([]time.Duration, len(r.Results))
	for i, res := range r.Results {
		out[i] = res.Latency
	}
	slices.Sort(out)
	return out
}

// Percentile is the p-th percentile (0 < p ≤ 1) of the latencies.
func (r Report) Percentile(p float64) time.Duration { return Percentile(r.Latencies(), p) }

// String is the report on one line: deliveries, rate, p50, p99, errors.
func (r Report) String() string {
	l := r.Latencies()
	return fmt.Sprintf("%d deliveries in %s: %.1f/s, p50 %s, p99 %s, max %s, %d errors",
		len(l), r.Elapsed.Round(time.Millisecond), r.PerSecond(), Percentile(l, 0.50).Round(time.Millisecond),
		Percentile(l, 0.99).Round(time.Millisecond), Percentile(l, 1).Round(time.Millisecond), r.Errors()) + r.errorKinds()
}

// errorKinds says what the deliveries the stack did not take got, most
// frequent first ("" when it took them all): " (503 ×12, EOF ×1)".
func (r Report) errorKinds() string {
	counts := map[string]int{}
	for _, res := range r.Results {
		switch {
		case res.OK():
		case res.Err != nil:
			counts[res.Err.Error()]++
		default:
			counts[strconv.Itoa(res.Status)]++
		}
	}
	if len(counts) == 0 {
		return ""
	}
	kinds := slices.Collect(maps.Keys(counts))
	slices.SortFunc(kinds, func(a, b string) int { return cmp.Or(counts[b]-counts[a], strings.Compare(a, b)) })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s ×%d", k, counts[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// Percentile is the p-th percentile (0 < p ≤ 1, nearest rank) of sorted;
// 0 when it is empty.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Run sends n deliveries, or, when n ≤ 0, sends until ctx ends, and
// reports them. A delivery under way when ctx ends is not counted.
// It fails only when the probe is misconfigured: a delivery's failure
// is a Result.
func (p *Probe) Run(ctx context.Context, n int) (Report, error) {
	if len(p.Kinds) == 0 {
		return Report{}, errors.New("loadprobe: no Kinds to send")
	}
	senders := p.Senders
	if senders <= 0 {
		senders = DefaultSenders
	}
	client := p.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: senders}}
	}
	turns := make(chan struct{})
	go p.pace(ctx, n, turns)
	var (
		mu      sync.Mutex
		results []Result
		wg      sync.WaitGroup
	)
	start := time.Now()
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range turns {
				res := p.deliver(ctx, client)
				if ctx.Err() != nil && res.Err != nil {
					return
				}
				mu.Lock()
				results = append(results, res)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return Report{Results: results, Elapsed: time.Since(start)}, nil
}

// pace hands out turns to send: n of them (or until ctx ends), at Rate
// when it is set.
func (p *Probe) pace(ctx context.Context, n int, turns chan<- struct{}) {
	defer close(turns)
	var tick <-chan time.Time
	if p.Rate > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / p.Rate))
		defer t.Stop()
		tick = t.C
	}
	for i := 0; n <= 0 || i < n; i++ {
		if tick != nil && i > 0 {
			select {
			case <-tick:
			case <-ctx.Done():
				return
			}
		}
		select {
		case turns <- struct{}{}:
		case <-ctx.Done():
			return
		}
	}
}

// next chooses the next delivery's event: a fresh one of the next kind,
// or, for the Redeliveries share, one sent before.
func (p *Probe) next(now time.Time) (Kind, []byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	// Every 1/Redeliveries-th delivery is a re-delivery: an even spread
	// that needs no random source.
	if p.Redeliveries > 0 && len(p.sent) > 0 && int(float64(p.n)*p.Redeliveries) > int(float64(p.n-1)*p.Redeliveries) {
		ev := p.sent[p.n%len(p.sent)]
		return p.Kinds[ev.kind], ev.body, true
	}
	k := p.n % len(p.Kinds)
	body := p.Kinds[k].Body(now)
	if p.Redeliveries > 0 {
		if len(p.sent) < maxRemembered {
			p.sent = append(p.sent, sentEvent{k, body})
		} else {
			p.sent[p.n%maxRemembered] = sentEvent{k, body}
		}
	}
	return p.Kinds[k], body, false
}

// maxRemembered bounds the events kept for re-deliveries.
const maxRemembered = 1024

// deliver sends one delivery and times it.
func (p *Probe) deliver(ctx context.Context, client *http.Client) Result {
	now := time.Now()
	kind, body, again := p.next(now)
	res := Result{Redelivery: again}
	header, err := kind.Provider.Sign(body, kind.Secret, provider.SignOptions{Now: now})
	if err != nil {
		res.Err = err
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.BaseURL+"/webhooks/"+kind.Provider.Name, bytes.NewReader(body))
	if err != nil {
		res.Err = err
		return res
	}
	req.Header = header
	start := time.Now()
	resp, err := client.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		res.Status = resp.StatusCode
	}
	res.Latency, res.Err = time.Since(start), err
	return res
}
