package cdc.kafka;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The partitions of Kafka topics with their earliest and end offsets, for bronze's batch read.
 *
 * <p>Spark's batch Kafka reader needs every partition named in its offset JSON; bronze asks this
 * class once, when a run starts, through Spark SQL's {@code reflect}. The consumer it opens takes
 * the same {@code kafka.*} options as Spark's reader (security included), commits nothing and
 * joins no group.
 */
public final class CdcKafkaOffsets {
  private CdcKafkaOffsets() {}

  /**
   * One line per partition: {@code topic TAB partition TAB earliest TAB end}, sorted.
   *
   * @param options the consumer's properties (java.util.Properties text: key=value lines)
   * @param topics topics separated by commas, or empty when {@code pattern} names them
   * @param pattern a regular expression matched against every topic name, or empty
   */
  public static String partitionOffsets(String options, String topics, String pattern)
      throws IOException {
    Properties properties = new Properties();
    properties.load(new StringReader(options));
    properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    properties.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    properties.remove(ConsumerConfig.GROUP_ID_CONFIG);
    StringBuilder lines = new StringBuilder();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties)) {
      List<TopicPartition> partitions = new ArrayList<>();
      Map<String, List<PartitionInfo>> listed = consumer.listTopics();
      Pattern matcher = pattern.isEmpty() ? null : Pattern.compile(pattern);
      List<String> named = new ArrayList<>();
      for (String topic : topics.split(",")) {
        if (!topic.trim().isEmpty()) {
          named.add(topic.trim());
        }
      }
      for (Map.Entry<String, List<PartitionInfo>> topic : new TreeMap<>(listed).entrySet()) {
        boolean wanted =
            named.contains(topic.getKey())
                || (matcher != null && matcher.matcher(topic.getKey()).matches());
        if (wanted) {
          for (PartitionInfo partition : topic.getValue()) {
            partitions.add(new TopicPartition(partition.topic(), partition.partition()));
          }
        }
      }
      Map<TopicPartition, Long> earliest = consumer.beginningOffsets(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      Map<String, TopicPartition> sorted = new TreeMap<>();
      for (TopicPartition partition : partitions) {
        sorted.put(String.format("%s\t%010d", partition.topic(), partition.partition()), partition);
      }
      for (TopicPartition partition : sorted.values()) {
        lines.append(partition.topic()).append('\t').append(partition.partition()).append('\t');
        lines.append(earliest.get(partition)).append('\t').append(end.get(partition)).append('\n');
      }
    }
    return lines.toString();
  }
}
