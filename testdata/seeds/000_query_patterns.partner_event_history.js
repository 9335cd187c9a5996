db.partner_events.find({
  "entity_metadata.partnerId": "6231cfc8800d284c981b3146"
}).sort({ created: -1 }).limit(100)
