package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"unicode/utf8"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/vault"
)

// protect replaces, before anything of the batch is stored, published or
// dead-lettered, the personal data of the records another producer
// published: a decoded event's payload becomes its protected form (and
// the record value with it, so a dead letter keeps that too); an
// undecodable record's value is redacted by value, as far as it is text.
// StreamOps' own events hold references only and come out unchanged.
func (p *Processor) protect(ctx context.Context, parts []PartitionBatch) error {
	if p.cfg.Personal == nil {
		return nil
	}
	for i := range parts {
		for j := range parts[i].Messages {
			m := &parts[i].Messages[j]
			if m.Err != nil {
				m.Raw = redactRaw(m.Raw)
				continue
			}
			out, err := p.protectPayload(ctx, m)
			if err != nil {
				return err
			}
			if bytes.Equal(out, m.Envelope.Payload) {
				continue
			}
			m.Envelope.Payload = out
			raw, err := json.Marshal(m.Envelope)
			if err != nil {
				return err
			}
			m.Raw = raw
		}
	}
	return nil
}

// createdData names the member of a *.created payload that carries the
// submitter's data: as for an API submission, only it is protected, so a
// workflow's name or a task's type stays what it is.
var createdData = map[events.Type]string{events.WorkflowCreated: "input", events.TaskCreated: "data"}

// clearMembers name the members of a lifecycle payload copied from a
// *.created's clear fields (the workflow's name, which partners filter
// on): kept as they are, as in the workflow.created they come from.
var clearMembers = map[events.Type][]string{events.WorkflowCompleted: {"name"}, events.WorkflowFailed: {"name"}}

// protectPayload is m's payload protected: a *.created's data member, any
// other event's whole payload but its clearMembers.
func (p *Processor) protectPayload(ctx context.Context, m *Message) ([]byte, error) {
	in := vault.Input{Doc: m.Envelope.Payload, Place: "kafka:" + m.Topic, Key: m.Envelope.EventID}
	field, ok := createdData[m.Envelope.EventType]
	if !ok {
		return p.protectBut(ctx, in, clearMembers[m.Envelope.EventType])
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(m.Envelope.Payload, &members); err != nil || len(members[field]) == 0 {
		return m.Envelope.Payload, nil // the catalog accepted it; nothing of the submitter's to protect
	}
	in.Doc = members[field]
	out, err := p.cfg.Personal.Protect(ctx, in)
	if err != nil || bytes.Equal(out, members[field]) {
		return m.Envelope.Payload, err
	}
	members[field] = out
	return json.Marshal(members)
}

// protectBut protects in.Doc but its top-level members named by keep,
// which stay as they are.
func (p *Processor) protectBut(ctx context.Context, in vault.Input, keep []string) ([]byte, error) {
	var members map[string]json.RawMessage
	if len(keep) == 0 || json.Unmarshal(in.Doc, &members) != nil {
		return p.cfg.Personal.Protect(ctx, in)
	}
	kept := map[string]json.RawMessage{}
	for _, k := range keep {
		if v, ok := members[k]; ok {
			kept[k] = v
			delete(members, k)
		}
	}
	if len(kept) == 0 {
		return p.cfg.Personal.Protect(ctx, in)
	}
	orig := in.Doc
	rest, err := json.Marshal(members)
	if err != nil {
		return nil, err
	}
	in.Doc = rest
	out, err := p.cfg.Personal.Protect(ctx, in)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(out, rest) {
		return orig, nil // nothing to protect: the payload as it came
	}
	if err := json.Unmarshal(out, &members); err != nil {
		return nil, err
	}
	maps.Copy(members, kept)
	return json.Marshal(members)
}

// redactRaw is an undecodable record's value without the personal data
// the scrubber finds in it: JSON scrubbed whole, other text by value;
// binary is kept as it came (there is nothing to read it by).
func redactRaw(raw []byte) []byte {
	if json.Valid(raw) {
		if out, err := pii.Scrub(raw); err == nil {
			return out
		}
	}
	if utf8.Valid(raw) {
		if out, changed := pii.ScrubText(string(raw)); changed {
			return []byte(out)
		}
	}
	return raw
}
