db.partner_events.find({
  event_status: "FAILED",
  "entity_metadata.resilienceAttemptCount.5": { $exists: false }
})
