{
  name: "workflows",
  partitions: 3,
  replicationFactor: 1,
  retentionMs: 604800000, // 7 days
  cleanupPolicy: "delete"
}
