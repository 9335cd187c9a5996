# Publish test event
echo 'wf-test|{"eventType":"workflow.created","eventId":"test-1","timestamp":"2026-01-04T01:00:00Z","payload":{"workflowId":"wf-test","name":"Test","steps":["step1"],"priority":"low","createdAt":"2026-01-04T01:00:00Z"}}' | \
  docker exec -i <kafka-container> kafka-console-producer \
    --bootstrap-server localhost:9092 \
    --topic workflows \
    --property "parse.key=true" \
    --property "key.separator=|"
