{
  groupId: "workflow-processors",
  sessionTimeout: 30000,
  heartbeatInterval: 3000,
  maxPollInterval: 300000,
  autoCommit: true,
  autoCommitInterval: 5000
}
