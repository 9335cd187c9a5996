package provider

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Partner makes a provider a partner (seed 000): besides its webhook_event,
// each delivery is recorded as an inbound partner_event whose
// entity_metadata these settings fill.
type Partner struct {
	// PartnerID is entity_metadata.partnerId, the partner's unique id.
	// Required.
	PartnerID string `json:"partnerId"`
	// PartnerName is entity_metadata.partnerName. Required.
	PartnerName string `json:"partnerName"`
	// EntityIDPath is the gjson path of entity_metadata.entity_id in the
	// body, e.g. "order.id". Required.
	EntityIDPath string `json:"entityIdPath"`
	// EntityTypePath is the gjson path of entity_metadata.entity_type in
	// the body. Set it or EntityType, not both.
	EntityTypePath string `json:"entityTypePath,omitempty"`
	// EntityType is a fixed entity_metadata.entity_type ("Order", "Sub",
	// "Prom") for partners whose deliveries are all about one kind of
	// entity.
	EntityType string `json:"entityType,omitempty"`
	// DeliveryFields are body paths (dot-separated keys) that change with
	// each delivery rather than with the entity, such as a send time or a
	// delivery counter: a resend that differs from the stored version only
	// in them is a duplicate (EntityFingerprint). The provider's eventId
	// path is always one.
	DeliveryFields []string `json:"deliveryFields,omitempty"`
}

// PartnerMetadata is a partner delivery's seed-000 entity_metadata, without
// the retry bookkeeping. The caller builds the store.PartnerEvent from it:
// event_type from Identify, event_direction IN, entity_data the redacted
// payload.
type PartnerMetadata struct {
	PartnerID   string
	PartnerName string
	EntityID    string
	EntityType  string
}

// PartnerMetadata reads a partner delivery's entity id and type from its
// body (the verified, unredacted one: ids are not PII). ok is false when
// the provider is not a partner. A missing or non-scalar value is a
// *FieldError.
func (p *Provider) PartnerMetadata(body []byte) (md PartnerMetadata, ok bool, err error) {
	pt := p.Partner
	if pt == nil {
		return PartnerMetadata{}, false, nil
	}
	md = PartnerMetadata{PartnerID: pt.PartnerID, PartnerName: pt.PartnerName, EntityType: pt.EntityType}
	if md.EntityID, err = scalarAt(body, pt.EntityIDPath); err != nil {
		return PartnerMetadata{}, true, &FieldError{Provider: p.Name, Field: "entity_id", Source: Field{Path: pt.EntityIDPath}, Reason: err.Error()}
	}
	if pt.EntityTypePath != "" {
		if md.EntityType, err = scalarAt(body, pt.EntityTypePath); err != nil {
			return PartnerMetadata{}, true, &FieldError{Provider: p.Name, Field: "entity_type", Source: Field{Path: pt.EntityTypePath}, Reason: err.Error()}
		}
	}
	return md, true, nil
}

// PartnerID is the partnerId of everything a delivery from p causes:
// metadata.partnerId of its events (webhook.received and the workflow or
// task it starts, and so every event and delivery of that work),
// entity_metadata.partnerId of its partner_events. A partner's is its
// configured partner.partnerId, the one id its outbox deliveries, its
// partner_endpoints document and its tokens carry too; any other
// provider's is its name.
func (p *Provider) PartnerID() string {
	if p.Partner != nil {
		return p.Partner.PartnerID
	}
	return p.Name
}

// CheckPartnerID refuses id as a partner's id (a partners file entry, a
// partner token's scope) when it is the name of a partner provider whose
// partnerId is another: everything that provider's deliveries cause
// carries the partnerId, so a token or endpoint under the name would see
// or own none of it.
func (r *Registry) CheckPartnerID(id string) error {
	p, ok := r.providers[id]
	if ok && p.Partner != nil && p.Partner.PartnerID != id {
		return fmt.Errorf("%q is the provider name of partner %q: use its partnerId %q", id, p.Partner.PartnerName, p.Partner.PartnerID)
	}
	return nil
}

// EntityFingerprint is the SHA-256 (hex) of a partner delivery's document
// doc (the redacted body, entity_data) without the fields that identify
// the delivery rather than the entity: the provider's eventId path and the
// partner's DeliveryFields. Two deliveries with one fingerprint carry the
// same entity state: the second is a resend. Keys are compared sorted and
// numbers by their text, so only a change in the entity changes it.
func (p *Provider) EntityFingerprint(doc []byte) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidPayload, err)
	}
	paths := []string{}
	if p.EventID.Path != "" {
		paths = append(paths, p.EventID.Path)
	}
	if p.Partner != nil {
		paths = append(paths, p.Partner.DeliveryFields...)
	}
	for _, path := range paths {
		deletePath(v, splitPath(path))
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("webhook: %s: fingerprint: %w", p.Name, err)
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// splitPath splits a dot-separated path, `\.` being a literal dot.
func splitPath(path string) []string {
	var keys []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		switch {
		case path[i] == '\\' && i+1 < len(path) && path[i+1] == '.':
			cur.WriteByte('.')
			i++
		case path[i] == '.':
			keys = append(keys, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(path[i])
		}
	}
	return append(keys, cur.String())
}

// deletePath removes the object member at keys from v, if it is there.
func deletePath(v any, keys []string) {
	for i, k := range keys {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		if i == len(keys)-1 {
			delete(obj, k)
			return
		}
		v = obj[k]
	}
}

func (pt *Partner) validate(field string, errs *configErrors) {
	if pt.PartnerID == "" {
		errs.add(field+".partnerId", "is required")
	}
	if pt.PartnerName == "" {
		errs.add(field+".partnerName", "is required")
	}
	if pt.EntityIDPath == "" {
		errs.add(field+".entityIdPath", "is required")
	}
	if (pt.EntityTypePath == "") == (pt.EntityType == "") {
		errs.add(field, "needs exactly one of entityTypePath or entityType")
	}
	for i, path := range pt.DeliveryFields {
		if path == "" || strings.ContainsAny(path, "*?#|@") {
			errs.add(fmt.Sprintf("%s.deliveryFields[%d]", field, i), "%q must be dot-separated keys", path)
		}
	}
}

// checkPartnerIDs refuses a partner whose partnerId is the name of
// another provider: the events of that provider's deliveries carry its
// name as partnerId, so the two would share one id.
func checkPartnerIDs(providers []Provider, errs *configErrors) {
	names := map[string]int{}
	for i, p := range providers {
		names[p.Name] = i
	}
	for i, p := range providers {
		if p.Partner == nil {
			continue
		}
		if j, ok := names[p.Partner.PartnerID]; ok && j != i {
			errs.add(fmt.Sprintf("providers[%d].partner.partnerId", i), "%q is the name of providers[%d]: a partner's id must not be another provider's", p.Partner.PartnerID, j)
		}
	}
}
