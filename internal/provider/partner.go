package provider

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
}
