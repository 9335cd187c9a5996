package bus

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
)

// encode returns env's record value and partition key: as events.New
// left them when nothing changed since (New marshals every event to
// validate it), else json.Marshal of the envelope and its AggregateID.
func encode(env *events.Envelope) (value, key []byte, err error) {
	if value, key, ok := env.Encoding(); ok {
		return value, key, nil
	}
	if value, err = json.Marshal(env); err != nil {
		return nil, nil, err
	}
	return value, []byte(env.AggregateID()), nil
}

// encodeChunk is how many envelopes one encoding step takes: enough to make
// the hand-off between goroutines cheap, few enough that kgo gets the first
// records almost at once.
const encodeChunk = 256

// encodeInOrder fills recs[i] from envs[i] and calls emit(i, err) for every
// i in input order, as soon as that record is ready; emit runs on the
// calling goroutine, so records reach kgo in input order and per-key order
// holds. Batches of several chunks are encoded on GOMAXPROCS-1 goroutines
// while the caller hands finished chunks to kgo.
func encodeInOrder(envs []events.Envelope, recs []kgo.Record, topic string, rt *recordTrace, emit func(i int, err error)) {
	n := len(envs)
	chunks := (n + encodeChunk - 1) / encodeChunk
	workers := min(runtime.GOMAXPROCS(0)-1, chunks)
	if workers < 1 || chunks < 2 {
		for i := range envs {
			emit(i, fill(&recs[i], &envs[i], topic, rt))
		}
		return
	}

	errs := make([]error, n)
	ready := make([]chan struct{}, chunks)
	for k := range ready {
		ready[k] = make(chan struct{})
	}
	var next atomic.Int64
	for range workers {
		go func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= chunks {
					return
				}
				for i := k * encodeChunk; i < min(n, (k+1)*encodeChunk); i++ {
					errs[i] = fill(&recs[i], &envs[i], topic, rt)
				}
				close(ready[k])
			}
		}()
	}
	for k := range chunks {
		<-ready[k]
		for i := k * encodeChunk; i < min(n, (k+1)*encodeChunk); i++ {
			emit(i, errs[i])
		}
	}
}

// errEncode wraps an envelope that json.Marshal refuses.
func errEncode(env *events.Envelope, err error) error {
	return fmt.Errorf("%w: encode %s %s: %w", ErrUnroutable, env.EventType, env.EventID, err)
}
