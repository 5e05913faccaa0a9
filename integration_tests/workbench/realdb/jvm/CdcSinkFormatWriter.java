package cdc.workbench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.AvroTypeException;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;

/**
 * Kafka Connect JSON sink files (the JsonConverter's values, schemas on) written again as the
 * Kafka Connect S3 sink writes the same records with {@code format.class} AvroFormat or
 * ParquetFormat (the tests of issue 73: Avro and Parquet landing files from real Debezium
 * records).
 *
 * <p>Each JSON line is read as the JsonConverter reads it (a null payload field takes its
 * schema's default), its Connect schema turned into an Avro schema as Confluent's AvroData does
 * with its default settings, and its value into an Avro datum: int8 and int16 as {@code int}
 * with {@code connect.type}; Connect's Decimal as bytes with the decimal logical type (precision
 * {@code connect.decimal.precision}, else 64), Date, Time and Timestamp with theirs; a struct as
 * a record named by its Connect name (namespace and name; {@code ConnectDefault} when it has
 * none), defined once and referred to by name after; an optional type as a union with null
 * (null first, or last when it has a default); a map with string keys as a map, any other as an
 * array of {@code MapEntry} records; the Connect doc, version, parameters, default and name as
 * {@code connect.*} properties. Then, as the sink: an Avro object container per file with the
 * codec of {@code avro.codec}; or parquet-avro's writer with the Avro schema (dictionary encoding,
 * 64 KiB pages, the codec of {@code parquet.codec}; the new list structure when an array's items
 * are optional). A file is rotated when the schema changes, as the sink does, and named
 * {@code <topic>+<partition>+<offset of its first record>.avro} (or {@code .<codec>.parquet}).
 * A tombstone (the line {@code null}) fails, as the sink's default {@code
 * behavior.on.null.values=fail} does, or is skipped with {@code --null-values=ignore}.
 *
 * <p>Usage: {@code --in=<root> --out=<root> [--format=avro|parquet] [--codec=<codec>] <file>...}:
 * each file under {@code --in} is written at the same relative folder under {@code --out}, with
 * the format and codec named before it. Prints the files written, one a line.
 */
public final class CdcSinkFormatWriter {
  // numbers read exactly, as the JsonConverter reads them (a decimal may be written as one)
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
  private static final Pattern SINK_FILE = Pattern.compile("(.+)\\+(\\d+)\\+(\\d+)\\.json");
  private static final String NAMESPACE = "io.confluent.connect.avro";
  private static final String DECIMAL = "org.apache.kafka.connect.data.Decimal";
  private static final String FIELD_DEFAULT_FLAG = NAMESPACE + ".field.default";

  private CdcSinkFormatWriter() {}

  public static void main(String[] args) throws IOException {
    // options apply to the files after them: --format=avro a.json --format=parquet b.json
    Map<String, String> options = new HashMap<>();
    for (String arg : args) {
      if (arg.startsWith("--") && arg.contains("=")) {
        options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        continue;
      }
      String format = options.getOrDefault("format", "avro");
      String codec = options.getOrDefault("codec", "avro".equals(format) ? "null" : "snappy");
      boolean ignoreNulls = "ignore".equals(options.getOrDefault("null-values", "fail"));
      Path in = Path.of(options.get("in")).toAbsolutePath();
      Path out = Path.of(options.get("out")).toAbsolutePath();
      Path file = Path.of(arg).toAbsolutePath();
      Path target = out.resolve(in.relativize(file)).getParent();
      for (Path written : convert(file, target, format, codec, ignoreNulls)) {
        System.out.println(written);
      }
    }
  }

  /** The Avro schema AvroData makes of a Connect schema in the JsonConverter's JSON. */
  public static Schema schemaOf(String connectSchemaJson) throws IOException {
    return new AvroSchemas().of(Connect.parse(JSON.readTree(connectSchemaJson)));
  }

  /** One sink file's records written as the S3 sink writes them: the files written. */
  static List<Path> convert(Path file, Path folder, String format, String codec, boolean ignoreNulls)
      throws IOException {
    Matcher name = SINK_FILE.matcher(file.getFileName().toString());
    if (!name.matches()) {
      throw new IllegalArgumentException("not a sink file name: " + file);
    }
    long start = Long.parseLong(name.group(3));
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    List<Path> written = new ArrayList<>();
    RecordFile current = null;
    JsonNode currentSchema = null;
    for (int index = 0; index < lines.size(); index++) {
      String line = lines.get(index);
      if (line.isEmpty()) {
        continue;
      }
      JsonNode message = JSON.readTree(line);
      if (message == null || message.isNull()) {
        if (!ignoreNulls) {
          throw new IllegalStateException(
              file + ":" + (index + 1) + ": a tombstone (behavior.on.null.values=fail)");
        }
        continue;
      }
      JsonNode schema = message.get("schema");
      if (current == null || !schema.equals(currentSchema)) {
        if (current != null) {
          written.add(current.close());
        }
        String stem = String.format("%s+%s+%010d", name.group(1), name.group(2), start + index);
        current = new RecordFile(folder, stem, format, codec, schema);
        currentSchema = schema;
      }
      current.write(message.get("payload"));
    }
    if (current != null) {
      written.add(current.close());
    }
    return written;
  }

  /** One output file: written aside, moved in whole when closed. */
  private static final class RecordFile {
    private final Path target;
    private final Path aside;
    private final Connect schema;
    private final Schema avroSchema;
    private DataFileWriter<Object> avro;
    private OutputStream avroOut;
    private ParquetWriter<GenericRecord> parquet;

    RecordFile(Path folder, String stem, String format, String codec, JsonNode schemaJson)
        throws IOException {
      schema = Connect.parse(schemaJson);
      avroSchema = new AvroSchemas().of(schema);
      Files.createDirectories(folder);
      // written outside the landing folder, moved in when whole
      aside = Files.createTempFile("cdc-sink-file-", ".part");
      if ("avro".equals(format)) {
        target = folder.resolve(stem + ".avro");
        avro = new DataFileWriter<>(new GenericDatumWriter<>());
        avro.setCodec(CodecFactory.fromString(codec));
        avroOut = Files.newOutputStream(aside);
        avro.create(avroSchema, avroOut);
      } else {
        CompressionCodecName parquetCodec = "none".equalsIgnoreCase(codec)
            ? CompressionCodecName.UNCOMPRESSED
            : CompressionCodecName.valueOf(codec.toUpperCase());
        target = folder.resolve(stem + parquetCodec.getExtension() + ".parquet");
        Files.delete(aside);
        AvroParquetWriter.Builder<GenericRecord> builder =
            AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(aside))
                .withSchema(avroSchema)
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                .withDictionaryEncoding(true)
                .withCompressionCodec(parquetCodec)
                .withPageSize(64 * 1024);
        if (schema.hasArrayOfOptionalItems()) {
          builder.config(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, "false");
        }
        parquet = builder.build();
      }
    }

    void write(JsonNode payload) throws IOException {
      Object datum = schema.avro(avroSchema, schema.value(payload));
      if (avro != null) {
        avro.append(datum);
      } else {
        parquet.write((GenericRecord) datum);
      }
    }

    Path close() throws IOException {
      if (avro != null) {
        avro.close();
        avroOut.close();
      } else {
        parquet.close();
      }
      Files.move(aside, target, StandardCopyOption.REPLACE_EXISTING);
      return target;
    }
  }

  /** A Connect schema as the JsonConverter writes it (type, optional, name, ..., fields). */
  static final class Connect {
    String type;
    boolean optional;
    String name;
    Integer version;
    String doc;
    LinkedHashMap<String, String> parameters;
    JsonNode defaultJson;
    Connect items;
    Connect keys;
    Connect values;
    final List<String> fieldNames = new ArrayList<>();
    final List<Connect> fields = new ArrayList<>();
    JsonNode identity; // the schema's JSON without its field name: equal schemas, equal JSON

    static Connect parse(JsonNode json) {
      Connect schema = new Connect();
      schema.type = json.get("type").asText();
      schema.optional = json.path("optional").asBoolean(false);
      schema.name = json.hasNonNull("name") ? json.get("name").asText() : null;
      schema.version = json.hasNonNull("version") ? json.get("version").asInt() : null;
      schema.doc = json.hasNonNull("doc") ? json.get("doc").asText() : null;
      if (json.hasNonNull("parameters")) {
        schema.parameters = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = json.get("parameters").fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> entry = it.next();
          schema.parameters.put(entry.getKey(), entry.getValue().asText());
        }
      }
      schema.defaultJson = json.hasNonNull("default") ? json.get("default") : null;
      switch (schema.type) {
        case "array":
          schema.items = parse(json.get("items"));
          break;
        case "map":
          schema.keys = parse(json.get("keys"));
          schema.values = parse(json.get("values"));
          break;
        case "struct":
          for (JsonNode field : json.get("fields")) {
            schema.fieldNames.add(field.get("field").asText());
            schema.fields.add(parse(field));
          }
          break;
        default:
          break;
      }
      ObjectNode identity = ((ObjectNode) json).deepCopy();
      identity.remove("field");
      schema.identity = identity;
      return schema;
    }

    Connect nonOptional() {
      if (!optional) {
        return this;
      }
      Connect copy = new Connect();
      copy.type = type;
      copy.name = name;
      copy.version = version;
      copy.doc = doc;
      copy.parameters = parameters;
      copy.defaultJson = defaultJson;
      copy.items = items;
      copy.keys = keys;
      copy.values = values;
      copy.fieldNames.addAll(fieldNames);
      copy.fields.addAll(fields);
      copy.identity = ((ObjectNode) identity).deepCopy().put("optional", false);
      return copy;
    }

    boolean isUnion() {
      return "struct".equals(type) && (NAMESPACE + ".Union").equals(name);
    }

    boolean hasArrayOfOptionalItems() {
      switch (type) {
        case "struct":
          return fields.stream().anyMatch(Connect::hasArrayOfOptionalItems);
        case "map":
          return values.hasArrayOfOptionalItems();
        case "array":
          return items.optional || items.hasArrayOfOptionalItems();
        default:
          return false;
      }
    }

    /**
     * The Connect value of a JSON payload as the JsonConverter reads it: a null takes the
     * schema's default; bytes are decoded; a struct is a map of its fields in order.
     */
    Object value(JsonNode json) {
      if (json == null || json.isNull()) {
        if (defaultJson != null) {
          return value(defaultJson);
        }
        if (!optional) {
          throw new IllegalArgumentException("a null for a required " + type);
        }
        return null;
      }
      switch (type) {
        case "int8":
        case "int16":
        case "int32":
          return json.intValue();
        case "int64":
          return json.longValue();
        case "float":
          return json.floatValue();
        case "double":
          return json.doubleValue();
        case "boolean":
          return json.booleanValue();
        case "string":
          return json.textValue();
        case "bytes":
          if (DECIMAL.equals(name) && json.isNumber()) {
            // the JsonConverter's decimal.format=NUMERIC
            BigDecimal decimal = json.decimalValue()
                .setScale(Integer.parseInt(parameters.get("scale")), RoundingMode.UNNECESSARY);
            return decimal.unscaledValue().toByteArray();
          }
          byte[] bytes = Base64.getDecoder().decode(json.textValue());
          // AvroData writes a Decimal's unscaled value as its shortest two's complement
          return DECIMAL.equals(name) && bytes.length > 0 ? new BigInteger(bytes).toByteArray() : bytes;
        case "array":
          List<Object> list = new ArrayList<>();
          json.forEach(item -> list.add(items.value(item)));
          return list;
        case "map":
          Map<Object, Object> map = new LinkedHashMap<>();
          if ("string".equals(keys.type)) {
            json.fields().forEachRemaining(e -> map.put(e.getKey(), values.value(e.getValue())));
          } else {
            json.forEach(pair -> map.put(keys.value(pair.get(0)), values.value(pair.get(1))));
          }
          return map;
        case "struct":
          LinkedHashMap<String, Object> struct = new LinkedHashMap<>();
          for (int index = 0; index < fields.size(); index++) {
            struct.put(fieldNames.get(index), fields.get(index).value(json.get(fieldNames.get(index))));
          }
          return struct;
        default:
          throw new IllegalArgumentException("unknown Connect type " + type);
      }
    }

    /** The Avro datum of a Connect value (AvroData.fromConnectData), `avro` its Avro schema. */
    @SuppressWarnings("unchecked")
    Object avro(Schema avro, Object value) {
      if (value == null) {
        return null;
      }
      Schema underlying = underlying(avro);
      switch (type) {
        case "bytes":
          byte[] bytes = (byte[]) value;
          if (underlying.getType() == Schema.Type.FIXED) {
            int size = underlying.getFixedSize();
            if (DECIMAL.equals(name) && bytes.length < size) {
              byte[] padded = new byte[size];
              Arrays.fill(padded, 0, size - bytes.length, bytes.length > 0 && bytes[0] < 0 ? (byte) -1 : 0);
              System.arraycopy(bytes, 0, padded, size - bytes.length, bytes.length);
              bytes = padded;
            }
            return new GenericData.Fixed(underlying, bytes);
          }
          return ByteBuffer.wrap(bytes);
        case "array":
          List<Object> list = new ArrayList<>();
          for (Object item : (List<Object>) value) {
            list.add(items.avro(underlying.getElementType(), item));
          }
          return list;
        case "map":
          Map<Object, Object> map = (Map<Object, Object>) value;
          if ("string".equals(keys.type) && !keys.optional) {
            Map<String, Object> converted = new HashMap<>();
            map.forEach((k, v) -> converted.put((String) k, values.avro(underlying.getValueType(), v)));
            return converted;
          }
          Schema entry = underlying.getElementType();
          List<Object> entries = new ArrayList<>();
          map.forEach((k, v) -> {
            GenericData.Record record = new GenericData.Record(entry);
            record.put("key", keys.avro(entry.getField("key").schema(), k));
            record.put("value", values.avro(entry.getField("value").schema(), v));
            entries.add(record);
          });
          return entries;
        case "struct":
          Map<String, Object> struct = (Map<String, Object>) value;
          if (isUnion()) {
            for (int index = 0; index < fields.size(); index++) {
              Object member = struct.get(fieldNames.get(index));
              if (member != null) {
                Connect memberSchema = fields.get(index);
                for (Schema branch : avro.getTypes()) {
                  if (matches(memberSchema, branch)) {
                    return memberSchema.nonOptional().avro(branch, member);
                  }
                }
              }
            }
            return null;
          }
          GenericData.Record record = new GenericData.Record(underlying);
          for (int index = 0; index < fields.size(); index++) {
            String field = fieldNames.get(index);
            record.put(field, fields.get(index).avro(underlying.getField(field).schema(), struct.get(field)));
          }
          return record;
        default:
          return value;
      }
    }

    /** The member of an optional type's union that is not null (the type itself otherwise). */
    private Schema underlying(Schema avro) {
      if (optional && avro.getType() == Schema.Type.UNION && !isUnion()) {
        for (Schema member : avro.getTypes()) {
          if (member.getType() != Schema.Type.NULL) {
            return member;
          }
        }
      }
      return avro;
    }

    private static boolean matches(Connect member, Schema branch) {
      switch (branch.getType()) {
        case RECORD:
        case ENUM:
        case FIXED:
          return member.name != null && member.name.endsWith(branch.getName());
        case NULL:
          return false;
        default:
          return AvroSchemas.baseType(member) == branch.getType();
      }
    }
  }

  /** Connect schemas to Avro schemas (AvroData.fromConnectSchema), one file's named types. */
  static final class AvroSchemas {
    private final Map<JsonNode, Schema> defined = new HashMap<>();
    private final java.util.Set<String> seenNames = new java.util.HashSet<>();
    private int defaultNames;

    Schema of(Connect schema) {
      return avro(schema, false);
    }

    static Schema.Type baseType(Connect schema) {
      switch (schema.type) {
        case "int8":
        case "int16":
        case "int32":
          return Schema.Type.INT;
        case "int64":
          return Schema.Type.LONG;
        case "float":
          return Schema.Type.FLOAT;
        case "double":
          return Schema.Type.DOUBLE;
        case "boolean":
          return Schema.Type.BOOLEAN;
        case "string":
          return Schema.Type.STRING;
        case "bytes":
          return Schema.Type.BYTES;
        case "array":
          return Schema.Type.ARRAY;
        case "map":
          return "string".equals(schema.keys.type) && !schema.keys.optional
              ? Schema.Type.MAP
              : Schema.Type.ARRAY;
        default:
          return Schema.Type.RECORD;
      }
    }

    private String[] names(String fullName) {
      if (fullName == null) {
        defaultNames++;
        return new String[] {NAMESPACE, "ConnectDefault" + (defaultNames > 1 ? defaultNames : "")};
      }
      int dot = fullName.lastIndexOf('.');
      return dot < 0
          ? new String[] {null, fullName}
          : new String[] {fullName.substring(0, dot), fullName.substring(dot + 1)};
    }

    Schema avro(Connect schema, boolean ignoreOptional) {
      if (!schema.isUnion() && !schema.optional && defined.containsKey(schema.identity)) {
        return defined.get(schema.identity);
      }
      String connectType = null;
      Schema base;
      switch (schema.type) {
        case "int8":
        case "int16":
          connectType = schema.type;
          base = Schema.create(Schema.Type.INT);
          break;
        case "int32":
          base = Schema.create(Schema.Type.INT);
          break;
        case "int64":
          base = Schema.create(Schema.Type.LONG);
          break;
        case "float":
          base = Schema.create(Schema.Type.FLOAT);
          break;
        case "double":
          base = Schema.create(Schema.Type.DOUBLE);
          break;
        case "boolean":
          base = Schema.create(Schema.Type.BOOLEAN);
          break;
        case "string":
          base = Schema.create(Schema.Type.STRING);
          break;
        case "bytes":
          String fixedSize = schema.parameters == null ? null : schema.parameters.get("connect.fixed.size");
          if (schema.name != null && fixedSize != null) {
            String[] names = names(schema.name);
            base = Schema.createFixed(names[1], null, names[0], Integer.parseInt(fixedSize));
          } else {
            base = Schema.create(Schema.Type.BYTES);
          }
          if (DECIMAL.equalsIgnoreCase(schema.name)) {
            base.addProp("scale", Integer.parseInt(schema.parameters.get("scale")));
            String precision = schema.parameters.get("connect.decimal.precision");
            base.addProp("precision", precision != null ? Integer.parseInt(precision) : 64);
          }
          break;
        case "array":
          base = Schema.createArray(avro(schema.items, false));
          break;
        case "map":
          if ("string".equals(schema.keys.type) && !schema.keys.optional) {
            base = Schema.createMap(avro(schema.values, false));
          } else {
            Schema entry;
            if (schema.name == null) {
              entry = Schema.createRecord("MapEntry", null, NAMESPACE, false);
            } else {
              String[] names = names(schema.name);
              entry = Schema.createRecord(names[1], null, names[0], false);
              entry.addProp("connect.internal.type", "MapEntry");
            }
            entry.setFields(List.of(field("key", schema.keys, null), field("value", schema.values, null)));
            base = Schema.createArray(entry);
          }
          break;
        case "struct":
          if (schema.isUnion()) {
            List<Schema> members = new ArrayList<>();
            if (schema.optional) {
              members.add(Schema.create(Schema.Type.NULL));
            }
            for (Connect member : schema.fields) {
              members.add(avro(member.nonOptional(), true));
            }
            base = Schema.createUnion(members);
          } else if (schema.optional) {
            base = Schema.createUnion(Schema.create(Schema.Type.NULL), avro(schema.nonOptional(), false));
          } else {
            String[] names = names(schema.name);
            String doc = schema.parameters == null ? null : schema.parameters.get(NAMESPACE + ".record.doc");
            base = Schema.createRecord(names[1], doc, names[0], false);
            List<Schema.Field> fields = new ArrayList<>();
            for (int index = 0; index < schema.fields.size(); index++) {
              String fieldDoc = schema.parameters == null
                  ? null
                  : schema.parameters.get(NAMESPACE + ".field.doc." + schema.fieldNames.get(index));
              fields.add(field(schema.fieldNames.get(index), schema.fields.get(index), fieldDoc));
            }
            base.setFields(fields);
          }
          break;
        default:
          throw new IllegalArgumentException("unknown Connect type " + schema.type);
      }
      Schema result = base;
      if (base.getType() != Schema.Type.UNION) {
        if (schema.doc != null) {
          base.addProp("connect.doc", schema.doc);
        }
        if (schema.version != null) {
          base.addProp("connect.version", JsonNodeFactory.instance.numberNode(schema.version));
        }
        if (schema.parameters != null) {
          ObjectNode parameters = JsonNodeFactory.instance.objectNode();
          schema.parameters.forEach((key, value) -> {
            if (!FIELD_DEFAULT_FLAG.equals(key)) {
              parameters.put(key, value);
            }
          });
          if (!parameters.isEmpty()) {
            base.addProp("connect.parameters", parameters);
          }
        }
        if (schema.defaultJson != null
            && (schema.parameters == null || !schema.parameters.containsKey(FIELD_DEFAULT_FLAG))) {
          base.addProp("connect.default", avroDefault(schema, schema.defaultJson));
        }
        if (schema.name != null) {
          base.addProp("connect.name", schema.name);
        }
        if (connectType != null) {
          base.addProp("connect.type", connectType);
        }
        boolean legacyDecimal = false;
        if (DECIMAL.equalsIgnoreCase(schema.name)) {
          String precisionText = schema.parameters.get("connect.decimal.precision");
          int precision = precisionText == null ? 64 : Integer.parseInt(precisionText);
          int scale = Integer.parseInt(schema.parameters.getOrDefault("scale", "0"));
          if (scale < 0 || scale > precision) {
            legacyDecimal = true;
          } else {
            LogicalTypes.decimal(precision, scale).addToSchema(base);
          }
        } else if ("org.apache.kafka.connect.data.Time".equalsIgnoreCase(schema.name)) {
          LogicalTypes.timeMillis().addToSchema(base);
        } else if ("org.apache.kafka.connect.data.Timestamp".equalsIgnoreCase(schema.name)) {
          LogicalTypes.timestampMillis().addToSchema(base);
        } else if ("org.apache.kafka.connect.data.Date".equalsIgnoreCase(schema.name)) {
          LogicalTypes.date().addToSchema(base);
        }
        if (DECIMAL.equalsIgnoreCase(schema.name)
            && (schema.parameters.containsKey("connect.decimal.precision") || legacyDecimal)) {
          base.addProp("logicalType", "decimal");
        }
        if (schema.parameters != null) {
          schema.parameters.forEach((key, value) -> {
            if (key.startsWith("avro")) {
              base.addProp(key, value);
            }
          });
        }
        if (!ignoreOptional && schema.optional) {
          result = schema.defaultJson != null
              ? Schema.createUnion(base, Schema.create(Schema.Type.NULL))
              : Schema.createUnion(Schema.create(Schema.Type.NULL), base);
        }
      }
      if (!schema.optional) {
        defined.put(schema.identity, result);
      }
      return result;
    }

    private Schema.Field field(String name, Connect schema, String doc) {
      Object defaultValue = null;
      if (schema.defaultJson != null) {
        defaultValue = avroDefaultObject(schema, schema.defaultJson);
      } else if (schema.optional) {
        defaultValue = JsonProperties.NULL_VALUE;
      }
      boolean seen = schema.name != null && !seenNames.add(schema.name);
      Schema fieldSchema = avro(schema, false);
      Schema.Field field;
      try {
        field = new Schema.Field(name, fieldSchema, doc, defaultValue);
      } catch (AvroTypeException invalid) {
        field = new Schema.Field(name, fieldSchema, doc); // AvroData ignores an invalid default
      }
      if (seen && schema.parameters != null && !schema.parameters.isEmpty() && isNamed(fieldSchema)) {
        ObjectNode parameters = JsonNodeFactory.instance.objectNode();
        schema.parameters.forEach((key, value) -> {
          if (!FIELD_DEFAULT_FLAG.equals(key)) {
            parameters.put(key, value);
          }
        });
        if (!parameters.isEmpty()) {
          field.addProp("connect.parameters", parameters);
        }
      }
      return field;
    }

    private static boolean isNamed(Schema schema) {
      if (schema.getType() == Schema.Type.UNION) {
        return schema.getTypes().stream().anyMatch(AvroSchemas::isNamed);
      }
      return schema.getType() == Schema.Type.RECORD
          || schema.getType() == Schema.Type.ENUM
          || schema.getType() == Schema.Type.FIXED;
    }

    /** A Connect default (JsonConverter's JSON) in Avro's JSON form (defaultValueFromConnect). */
    static JsonNode avroDefault(Connect schema, JsonNode json) {
      JsonNodeFactory nodes = JsonNodeFactory.instance;
      if (json == null || json.isNull()) {
        return nodes.nullNode();
      }
      switch (schema.type) {
        case "bytes":
          byte[] bytes = (byte[]) schema.value(json);
          return nodes.textNode(new String(bytes, StandardCharsets.ISO_8859_1));
        case "float":
          return nodes.numberNode(json.floatValue());
        case "array":
          ArrayNode list = nodes.arrayNode();
          json.forEach(item -> list.add(avroDefault(schema.items, item)));
          return list;
        case "map":
          if ("string".equals(schema.keys.type) && !schema.keys.optional) {
            ObjectNode map = nodes.objectNode();
            json.fields().forEachRemaining(e -> map.set(e.getKey(), avroDefault(schema.values, e.getValue())));
            return map;
          }
          ArrayNode pairs = nodes.arrayNode();
          json.forEach(pair -> pairs.add(nodes.arrayNode()
              .add(avroDefault(schema.keys, pair.get(0)))
              .add(avroDefault(schema.values, pair.get(1)))));
          return pairs;
        case "struct":
          ObjectNode struct = nodes.objectNode();
          for (int index = 0; index < schema.fields.size(); index++) {
            JsonNode field = avroDefault(schema.fields.get(index), json.get(schema.fieldNames.get(index)));
            if (schema.isUnion()) {
              return field;
            }
            struct.set(schema.fieldNames.get(index), field);
          }
          return struct;
        default:
          return json;
      }
    }

    private static Object avroDefaultObject(Connect schema, JsonNode json) {
      JsonNode node = avroDefault(schema, json);
      return node.isNull() ? JsonProperties.NULL_VALUE : JSON.convertValue(node, Object.class);
    }
  }
}
