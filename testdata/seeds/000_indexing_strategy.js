// Event retrieval by partner
db.partner_events.createIndex({ "entity_metadata.partnerId": 1, "created": -1 })

// Status-based queries
db.partner_events.createIndex({ "event_status": 1, "event_type": 1 })

// TTL for automatic cleanup
db.partner_events.createIndex({ "expire_at": 1 }, { expireAfterSeconds: 0 })

// Entity lookup
db.partner_events.createIndex({ "entity_metadata.entity_id": 1, "entity_metadata.entity_type": 1 })
