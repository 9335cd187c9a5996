# Consume from workflows topic
docker exec -it <kafka-container> kafka-console-consumer \
  --bootstrap-server localhost:9092 \
  --topic workflows \
  --from-beginning \
  --property print.key=true \
  --property key.separator="|"

# Output:
# wf-123|{"eventType":"workflow.created","eventId":"evt-456",...}
