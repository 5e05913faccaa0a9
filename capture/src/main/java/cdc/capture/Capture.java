package cdc.capture;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.ChangeEvent;
import io.debezium.embedded.Connect;

/**
 * Debezium's embedded engine writing what a Kafka Connect sink lands (issue 61).
 *
 * <p>The connector is configured by a properties file, as a user configures the connector
 * (connector.class, database.*, topic.prefix, plugin.name, ...). This program adds the
 * engine's settings: offsets in a file (FileOffsetBackingStore, committed after every batch,
 * so a restart resumes where the last committed batch ended: at least once), and writes each
 * batch as files:
 *
 * <ul>
 *   <li>{@code --format=sink} (default): {@code <out>/topics/<topic>/partition=0/<topic>+0+<start
 *       offset>.json}, one JsonConverter value per line (a tombstone is the line {@code null}),
 *       as the Kafka Connect S3 sink writes them;
 *   <li>{@code --format=kcat}: {@code <out>/kcat/<topic>-<start offset>.jsonl}, one {@code kcat -J}
 *       record per line, keeping the Kafka key and the headers (by the SimpleHeaderConverter);
 *   <li>{@code --format=kafka --bootstrap-servers=host:port,...}: nothing lands; each record is
 *       produced to a Kafka broker as a Kafka Connect worker's source task produces it: key and
 *       value by the JsonConverter, headers by the SimpleHeaderConverter, the record's topic
 *       (which must exist: the broker creates none), no partition (the producer's default
 *       partitioner hashes the key, murmur2, as a worker's producer does), the record's
 *       timestamp, acks=all. The batch is flushed before the engine commits its offsets.
 * </ul>
 *
 * In the file formats, Kafka offsets continue from the files already in {@code <out>} (the
 * landing folder is the topic's log): what a restart emits again lands again at new offsets,
 * as it would in Kafka (where it does).
 *
 * <p>It stops when it has captured what was committed before it was asked to stop: with {@code
 * --until-table=schema.table --until-value=V} when a row of that table (the capture's watermark,
 * not landed) whose first column is V arrived and the snapshot is over; otherwise after {@code
 * --idle-seconds} without a record, outside a snapshot, once the connector's task started. {@code --halt-after=N} ends the JVM at
 * once (no shutdown hook, no offset commit) after N records landed (or were produced and
 * acknowledged): a kill mid-batch.
 */
public final class Capture {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SINK_FILE = Pattern.compile("(.+)\\+(\\d+)\\+(\\d+)\\.json");
    private static final Pattern KCAT_FILE = Pattern.compile("(.+)-(\\d+)\\.jsonl");

    private final Path out;
    private final Path stateDir;
    private final boolean kcat;
    private final String untilTopicSuffix;
    private final String untilValue;
    private final long haltAfter;
    private final JsonConverter keys = new JsonConverter();
    private final JsonConverter values = new JsonConverter();
    private final SimpleHeaderConverter headers = new SimpleHeaderConverter();
    private final KafkaProducer<byte[], byte[]> producer;
    private final Map<String, Long> nextOffset = new HashMap<>();
    private final AtomicLong landed = new AtomicLong();
    private final AtomicLong lastRecordAt = new AtomicLong(System.nanoTime());
    private volatile boolean watermarkSeen;
    private volatile boolean snapshotOver;
    private volatile boolean inSnapshot;
    private volatile boolean taskStarted;
    private final CountDownLatch done = new CountDownLatch(1);

    private Capture(Map<String, String> options) throws IOException {
        out = Path.of(require(options, "out")).toAbsolutePath();
        stateDir = Path.of(require(options, "offsets")).toAbsolutePath().getParent();
        kcat = "kcat".equals(options.getOrDefault("format", "sink"));
        String until = options.get("until-table");
        untilTopicSuffix = until == null ? null : "." + until;
        untilValue = options.get("until-value");
        haltAfter = Long.parseLong(options.getOrDefault("halt-after", "-1"));
        boolean schemas = Boolean.parseBoolean(options.getOrDefault("schemas", "true"));
        keys.configure(Map.of("schemas.enable", String.valueOf(schemas)), true);
        values.configure(Map.of("schemas.enable", String.valueOf(schemas)), false);
        headers.configure(Map.of());
        Files.createDirectories(out);
        Files.createDirectories(stateDir);
        producer = "kafka".equals(options.get("format")) ? producer(require(options, "bootstrap-servers")) : null;
        readLandedOffsets();
    }

    /** A producer configured as a Kafka Connect worker's (acks=all, idempotent, bytes in). */
    private static KafkaProducer<byte[], byte[]> producer(String bootstrapServers) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(config);
    }

    private static String require(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + "=... is required");
        }
        return value;
    }

    /** The next Kafka offset of every topic: past the last line of its files in the landing folder. */
    private void readLandedOffsets() throws IOException {
        try (Stream<Path> files = Files.walk(out)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                Matcher sink = SINK_FILE.matcher(file.getFileName().toString());
                Matcher kcatName = KCAT_FILE.matcher(file.getFileName().toString());
                Matcher name = sink.matches() ? sink : kcatName.matches() ? kcatName : null;
                if (name == null) {
                    continue;
                }
                String topic = name.group(1);
                long start = Long.parseLong(name.group(name.groupCount()));
                long lines;
                try (Stream<String> content = Files.lines(file, StandardCharsets.UTF_8)) {
                    lines = content.filter(line -> !line.isEmpty()).count();
                }
                nextOffset.merge(topic, start + lines, Math::max);
            }
        }
    }

    private static String snapshotFlag(Struct value) {
        if (value.schema().field("source") == null) {
            return null;
        }
        Struct source = value.getStruct("source");
        if (source == null || source.schema().field("snapshot") == null) {
            return null;
        }
        Object flag = source.get("snapshot");
        return flag == null ? null : flag.toString();
    }

    private boolean isWatermark(SourceRecord record) {
        if (untilTopicSuffix == null || !record.topic().endsWith(untilTopicSuffix)) {
            return false;
        }
        if (record.value() instanceof Struct value) {
            // the row: the envelope's `after`, or the value itself when a transform flattened
            // the envelope (ExtractNewRecordState: no `after`)
            Struct row = value.schema().field("after") != null ? value.getStruct("after") : value;
            if (row != null && !row.schema().fields().isEmpty()) {
                Field first = row.schema().fields().get(0);
                if (String.valueOf(row.get(first)).equals(untilValue)) {
                    watermarkSeen = true;
                }
            }
        }
        return true;
    }

    private void observe(SourceRecord record) {
        if (record.value() instanceof Struct value && value.schema().field("op") != null) {
            String flag = snapshotFlag(value);
            boolean over = flag == null || "false".equals(flag) || "last".equals(flag);
            snapshotOver |= over;
            inSnapshot = !over;
        }
    }

    private String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private String line(SourceRecord record, long offset) throws IOException {
        String value = text(values.fromConnectData(record.topic(), record.valueSchema(), record.value()));
        if (!kcat) {
            return value == null ? "null" : value;
        }
        String key = text(keys.fromConnectData(record.topic(), record.keySchema(), record.key()));
        ObjectNode node = JSON.createObjectNode();
        node.put("topic", record.topic());
        node.put("partition", 0);
        node.put("offset", offset);
        node.put("tstype", "create");
        node.put("ts", record.timestamp() == null ? System.currentTimeMillis() : record.timestamp());
        node.put("broker", 0);
        if (!record.headers().isEmpty()) {
            // as kcat -J prints them: name, value, ... (values by the SimpleHeaderConverter)
            ArrayNode pairs = node.putArray("headers");
            for (Header header : record.headers()) {
                pairs.add(header.key());
                pairs.add(text(headers.fromConnectHeader(
                        record.topic(), header.key(), header.schema(), header.value())));
            }
        }
        node.put("key", key);
        node.put("payload", value);
        return JSON.writeValueAsString(node);
    }

    /** Lands one topic's records of a batch as one file, written aside and moved in whole. */
    private void land(String topic, List<SourceRecord> records) throws IOException {
        long start = nextOffset.getOrDefault(topic, 0L);
        StringBuilder content = new StringBuilder();
        for (int i = 0; i < records.size(); i++) {
            content.append(line(records.get(i), start + i)).append('\n');
        }
        Path target = kcat
                ? out.resolve("kcat").resolve(String.format("%s-%010d.jsonl", topic, start))
                : out.resolve("topics").resolve(topic).resolve("partition=0")
                        .resolve(String.format("%s+0+%010d.json", topic, start));
        Files.createDirectories(target.getParent());
        Path aside = Files.createTempFile(stateDir, "landing-", ".part");
        Files.writeString(aside, content, StandardCharsets.UTF_8);
        try {
            Files.move(aside, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.AtomicMoveNotSupportedException e) {
            // the offsets' folder is on another file system than the landing folder
            Files.move(aside, target, StandardCopyOption.REPLACE_EXISTING);
        }
        nextOffset.put(topic, start + records.size());
        long total = landed.addAndGet(records.size());
        if (haltAfter >= 0 && total >= haltAfter) {
            System.err.println("capture: halting after " + landed.get() + " landed records");
            Runtime.getRuntime().halt(137);
        }
    }

    /** The record as a Kafka Connect worker produces it (WorkerSourceTask's conversion). */
    private ProducerRecord<byte[], byte[]> producerRecord(SourceRecord record) {
        RecordHeaders converted = new RecordHeaders();
        for (Header header : record.headers()) {
            converted.add(header.key(),
                    headers.fromConnectHeader(record.topic(), header.key(), header.schema(), header.value()));
        }
        byte[] key = keys.fromConnectData(record.topic(), converted, record.keySchema(), record.key());
        byte[] value = values.fromConnectData(record.topic(), converted, record.valueSchema(), record.value());
        return new ProducerRecord<>(
                record.topic(), record.kafkaPartition(), record.timestamp(), key, value, converted);
    }

    /** Produces a batch's records in order and waits until the broker acknowledged them all. */
    private void produce(List<SourceRecord> records) {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (SourceRecord record : records) {
            sent.add(producer.send(producerRecord(record)));
            long total = landed.incrementAndGet();
            if (haltAfter >= 0 && total >= haltAfter) {
                producer.flush();
                System.err.println("capture: halting after " + landed.get() + " produced records");
                Runtime.getRuntime().halt(137);
            }
        }
        producer.flush();
        try {
            for (Future<RecordMetadata> future : sent) {
                future.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("capture: the broker refused a record", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("capture: interrupted while producing", e);
        }
    }

    private void handleBatch(
            List<ChangeEvent<SourceRecord, SourceRecord>> batch,
            DebeziumEngine.RecordCommitter<ChangeEvent<SourceRecord, SourceRecord>> committer)
            throws InterruptedException {
        lastRecordAt.set(System.nanoTime());
        // one file per topic per batch, in the batch's order within each topic
        Map<String, List<SourceRecord>> byTopic = new LinkedHashMap<>();
        List<SourceRecord> ordered = new ArrayList<>();
        for (ChangeEvent<SourceRecord, SourceRecord> event : batch) {
            // the Connect format: the event's key and value are both the SourceRecord
            SourceRecord record = event.value();
            observe(record);
            if (!isWatermark(record)) {
                byTopic.computeIfAbsent(record.topic(), t -> new ArrayList<>()).add(record);
                ordered.add(record);
            }
        }
        if (producer != null) {
            produce(ordered);
            byTopic.clear();
        }
        try {
            for (Map.Entry<String, List<SourceRecord>> entry : byTopic.entrySet()) {
                land(entry.getKey(), entry.getValue());
            }
        } catch (IOException e) {
            throw new IllegalStateException("capture: cannot land files in " + out, e);
        }
        for (ChangeEvent<SourceRecord, SourceRecord> event : batch) {
            committer.markProcessed(event);
        }
        committer.markBatchFinished();
        if (watermarkSeen && snapshotOver) {
            done.countDown();
        }
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("expected --name=value, got " + arg);
            }
            options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        return options;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = parse(args);
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(require(options, "config")))) {
            props.load(in);
        }
        props.setProperty("name", props.getProperty("name", "cdc-capture"));
        props.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        props.setProperty("offset.storage.file.filename", require(options, "offsets"));
        props.setProperty("offset.flush.interval.ms", "0");
        long idleNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(options.getOrDefault("idle-seconds", "5")));
        long timeoutNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(options.getOrDefault("timeout-seconds", "300")));

        Capture capture = new Capture(options);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        DebeziumEngine<ChangeEvent<SourceRecord, SourceRecord>> engine = DebeziumEngine.create(Connect.class)
                .using(props)
                .notifying(capture::handleBatch)
                .using(new DebeziumEngine.ConnectorCallback() {
                    @Override
                    public void taskStarted() {
                        capture.lastRecordAt.set(System.nanoTime());
                        capture.taskStarted = true;
                    }
                })
                .using((success, message, error) -> {
                    if (!success) {
                        failure.set(error != null ? error : new IllegalStateException(message));
                    }
                    stopped.countDown();
                })
                .build();
        // a daemon thread: nothing the engine leaves behind keeps the JVM alive after main
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "cdc-capture-engine");
            thread.setDaemon(true);
            return thread;
        });
        executor.execute(engine);
        long started = System.nanoTime();
        boolean watermarkMode = capture.untilTopicSuffix != null;
        while (true) {
            if (capture.done.await(200, TimeUnit.MILLISECONDS) || stopped.getCount() == 0) {
                break;
            }
            long now = System.nanoTime();
            boolean quiet = now - capture.lastRecordAt.get() > idleNanos;
            if (!watermarkMode && capture.taskStarted && !capture.inSnapshot && quiet) {
                break;
            }
            // the watermark came, and nothing after it for a while: a snapshot that flagged
            // no record "last" is over too
            if (watermarkMode && capture.watermarkSeen && quiet) {
                break;
            }
            if (now - started > timeoutNanos) {
                failure.compareAndSet(null, new IllegalStateException("capture: timed out"));
                break;
            }
        }
        if (stopped.getCount() > 0) {
            // still running: stop it (an engine that failed has stopped itself, and closing a
            // stopped engine throws)
            try {
                engine.close();
            }
            catch (IllegalStateException e) {
                failure.compareAndSet(null, e);
            }
        }
        executor.shutdown();
        if (!executor.awaitTermination(60, TimeUnit.SECONDS)) {
            failure.compareAndSet(null, new IllegalStateException("capture: the engine did not stop"));
        }
        if (capture.producer != null) {
            capture.producer.close();
        }
        if (failure.get() != null) {
            System.err.println("capture: failed: " + failure.get());
            failure.get().printStackTrace();
            System.exit(1);
        }
        System.out.println("capture: landed " + capture.landed.get() + " records in " + capture.out);
        System.exit(0);
    }
}
