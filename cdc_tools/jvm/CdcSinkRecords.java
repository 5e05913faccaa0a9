package cdc.landing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * The records of an Avro or Parquet landing file as the messages bronze keeps (issue 73).
 *
 * <p>Kafka Connect's S3, GCS and HDFS sinks write a topic's records with {@code format.class}
 * AvroFormat or ParquetFormat: Confluent's AvroData turns each record's Connect schema into an
 * Avro schema (its Connect name, version, parameters and default kept as {@code connect.*}
 * properties) and the value into an Avro datum; the container holds the schema. This class
 * undoes that: from the file's Avro schema it rebuilds the Connect schema as AvroData's reverse
 * mapping does, and writes every record as Kafka Connect's JsonConverter writes a value with
 * schemas on: {@code {"schema": <Connect schema>, "payload": <value>}}, one line per record. So a
 * record reaches silver as the same message its JSON twin (a JSON sink file of the same topic)
 * carries: Debezium's semantic types (names such as {@code io.debezium.time.MicroTimestamp}, the
 * Decimal's scale), optional fields, defaults and field order all come through.
 *
 * <p>Bronze calls {@link #jsonLines} through Spark SQL's {@code reflect}, once per file. A file
 * that cannot be read whole gives one line starting with {@link #UNREADABLE}: bronze keeps none
 * of its records and quarantines the file by name; one of no records gives {@link #EMPTY}. Only
 * a class missing from the class path (a jar not passed) fails the call: it fails bronze's run,
 * which loads the file once that is fixed.
 */
public final class CdcSinkRecords {
  /** The start of the one line a file that cannot be read gives: then records read, TAB, why. */
  public static final String UNREADABLE = "!unreadable\t";
  /** The one line a file of no records gives (a container with its header only). */
  public static final String EMPTY = "!empty\t0\t";

  private static final ObjectMapper JSON = new ObjectMapper();
  // as JsonConverter's: BigDecimal values kept exactly
  private static final JsonNodeFactory NODES = new JsonNodeFactory(true);

  private CdcSinkRecords() {}

  /**
   * Every record of one file as a JSON line (lines joined by '\n'), or the unreadable line.
   *
   * @param base64 the file's bytes, base64 (Spark SQL's {@code base64(content)})
   * @param container {@code avro} (an Avro object container file) or {@code parquet}
   */
  public static String jsonLines(String base64, String container) throws IOException {
    StringBuilder lines = new StringBuilder();
    long[] read = {0};
    try {
      byte[] bytes = Base64.getMimeDecoder().decode(base64);
      Writer writer = new Writer(lines, read);
      if ("avro".equals(container)) {
        readAvro(bytes, writer);
      } else if ("parquet".equals(container)) {
        readParquet(bytes, writer);
      } else {
        throw new IllegalArgumentException("unknown container " + container);
      }
      return read[0] == 0 ? EMPTY : lines.toString();
    } catch (LinkageError missing) {
      // a jar not on the class path (parquet-avro, a codec's library): a set-up error, not
      // the file's, so the run fails and the file loads once it is fixed
      throw missing;
    } catch (Exception | StackOverflowError failure) {
      return UNREADABLE + read[0] + "\t" + describe(failure);
    }
  }

  private static String describe(Throwable failure) {
    StringBuilder text = new StringBuilder();
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (text.length() > 0) {
        text.append(" <- ");
      }
      text.append(cause.getClass().getSimpleName());
      if (cause.getMessage() != null) {
        text.append(": ").append(cause.getMessage());
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    String flat = text.toString().replaceAll("\\s+", " ").trim();
    return flat.length() > 500 ? flat.substring(0, 500) + "..." : flat;
  }

  private static void readAvro(byte[] bytes, Writer writer) throws IOException {
    // Avro's reader ends quietly where a file cut short ends: its blocks are checked first
    long records = checkAvroBlocks(bytes);
    // GenericData without conversions: logical types keep their Avro representation
    GenericDatumReader<Object> datumReader = new GenericDatumReader<>(null, null, new GenericData());
    try (DataFileStream<Object> stream =
        new DataFileStream<>(new ByteArrayInputStream(bytes), datumReader)) {
      ConnectForm form = ConnectForm.of(stream.getSchema());
      for (Object record : stream) {
        writer.write(form, record);
      }
    }
    if (writer.read[0] != records) {
      throw new IOException(
          "the blocks hold " + records + " records, " + writer.read[0] + " were decoded");
    }
  }

  /**
   * The number of records of an Avro object container whose every block is whole.
   *
   * <p>A container is its header (magic, metadata, a 16-byte sync marker) then blocks, each a
   * record count, a byte size, the bytes and the sync marker again. Avro's own reader takes
   * the end of the input inside a block for the end of the file, so a file cut short (an
   * interrupted copy or upload) would load its first blocks as if they were all: this walk
   * fails instead, naming where the file ends. A file cut exactly after a block's sync
   * marker is a whole container of fewer blocks, which no reader can tell.
   */
  static long checkAvroBlocks(byte[] bytes) throws IOException {
    int[] position = {0};
    if (bytes.length < 4 || bytes[0] != 'O' || bytes[1] != 'b' || bytes[2] != 'j' || bytes[3] != 1) {
      throw new IOException("not an Avro object container file (no 'Obj' 1 magic at its start)");
    }
    position[0] = 4;
    for (long count = varLong(bytes, position); count != 0; count = varLong(bytes, position)) {
      if (count < 0) {
        count = -count;
        varLong(bytes, position); // the entries' byte size
      }
      for (long entry = 0; entry < count; entry++) {
        skip(bytes, position, varLong(bytes, position), "the header's metadata");
        skip(bytes, position, varLong(bytes, position), "the header's metadata");
      }
    }
    int sync = position[0];
    skip(bytes, position, 16, "the header's sync marker");
    long records = 0;
    for (int block = 1; position[0] < bytes.length; block++) {
      long count = varLong(bytes, position);
      long size = varLong(bytes, position);
      if (count < 0 || size < 0) {
        throw new IOException("block " + block + " has a negative count or size (a corrupt file)");
      }
      skip(bytes, position, size, "block " + block);
      skip(bytes, position, 16, "the sync marker of block " + block);
      for (int index = 0; index < 16; index++) {
        if (bytes[position[0] - 16 + index] != bytes[sync + index]) {
          throw new IOException("block " + block + " does not end with the file's sync marker"
              + " (a corrupt file)");
        }
      }
      records += count;
    }
    return records;
  }

  private static void skip(byte[] bytes, int[] position, long length, String what)
      throws IOException {
    if (length < 0 || length > bytes.length - position[0]) {
      throw new EOFException("the file ends inside " + what + " (" + bytes.length
          + " bytes; " + length + " more needed at byte " + position[0] + ")");
    }
    position[0] += (int) length;
  }

  /** Avro's variable-length zig-zag long at `position`, which moves past it. */
  private static long varLong(byte[] bytes, int[] position) throws IOException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (position[0] >= bytes.length) {
        throw new EOFException("the file ends inside a block's header (" + bytes.length + " bytes)");
      }
      int next = bytes[position[0]++] & 0xff;
      value |= (long) (next & 0x7f) << shift;
      if ((next & 0x80) == 0) {
        return (value >>> 1) ^ -(value & 1);
      }
    }
    throw new IOException("a malformed length at byte " + position[0] + " (a corrupt file)");
  }

  private static void readParquet(byte[] bytes, Writer writer) throws IOException {
    try (ParquetReader<Object> records =
        AvroParquetReader.<Object>builder(new BytesInputFile(bytes))
            .withDataModel(new GenericData())
            // the pages' CRC checksums (parquet-mr writes them): a corrupt page fails
            .set("parquet.page.verify-checksum.enabled", "true")
            .build()) {
      Map<Schema, ConnectForm> forms = new IdentityHashMap<>();
      for (Object record = records.read(); record != null; record = records.read()) {
        Schema schema = ((IndexedRecord) record).getSchema();
        writer.write(forms.computeIfAbsent(schema, ConnectForm::of), record);
      }
    }
  }

  /** Appends each record's JSON line: the Connect schema's JSON written once per form. */
  private static final class Writer {
    private final StringBuilder lines;
    final long[] read;
    private final Map<ConnectForm, String> schemaTexts = new IdentityHashMap<>();

    Writer(StringBuilder lines, long[] read) {
      this.lines = lines;
      this.read = read;
    }

    void write(ConnectForm form, Object record) throws IOException {
      String schema = schemaTexts.get(form);
      if (schema == null) {
        schema = JSON.writeValueAsString(form.jsonSchema());
        schemaTexts.put(form, schema);
      }
      String payload = JSON.writeValueAsString(form.json(record));
      if (read[0] > 0) {
        lines.append('\n');
      }
      lines.append("{\"schema\":").append(schema).append(",\"payload\":").append(payload);
      lines.append('}');
      read[0]++;
    }
  }

  /** A Parquet file held in memory, for parquet-avro's reader. */
  private static final class BytesInputFile implements InputFile {
    private final byte[] bytes;

    BytesInputFile(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public long getLength() {
      return bytes.length;
    }

    @Override
    public String toString() {
      return "the file";
    }

    @Override
    public SeekableInputStream newStream() {
      return new SeekableInputStream() {
        private int position;

        @Override
        public long getPos() {
          return position;
        }

        @Override
        public void seek(long newPosition) throws IOException {
          if (newPosition < 0 || newPosition > bytes.length) {
            throw new EOFException("seek to " + newPosition + " in a file of " + bytes.length);
          }
          position = (int) newPosition;
        }

        @Override
        public int read() {
          return position < bytes.length ? bytes[position++] & 0xff : -1;
        }

        @Override
        public int read(byte[] target, int offset, int length) {
          if (length == 0) {
            return 0;
          }
          if (position >= bytes.length) {
            return -1;
          }
          int count = Math.min(length, bytes.length - position);
          System.arraycopy(bytes, position, target, offset, count);
          position += count;
          return count;
        }

        @Override
        public void readFully(byte[] target) throws IOException {
          readFully(target, 0, target.length);
        }

        @Override
        public void readFully(byte[] target, int offset, int length) throws IOException {
          if (length > bytes.length - position) {
            throw new EOFException("the file ends " + (length - (bytes.length - position))
                + " bytes before a read of " + length);
          }
          System.arraycopy(bytes, position, target, offset, length);
          position += length;
        }

        @Override
        public int read(ByteBuffer target) {
          int count = Math.min(target.remaining(), bytes.length - position);
          if (count <= 0) {
            return target.hasRemaining() ? -1 : 0;
          }
          target.put(bytes, position, count);
          position += count;
          return count;
        }

        @Override
        public void readFully(ByteBuffer target) throws IOException {
          int length = target.remaining();
          if (length > bytes.length - position) {
            throw new EOFException("the file ends " + (length - (bytes.length - position))
                + " bytes before a read of " + length);
          }
          target.put(bytes, position, length);
          position += length;
        }
      };
    }
  }

  /**
   * The Connect schema AvroData rebuilds from an Avro schema, and how its values are written.
   *
   * <p>AvroData's reverse mapping (Avro to Connect), with its default settings (Connect
   * metadata on, enhanced Avro schema support and name scrubbing off, singleton unions
   * flattened): primitive types by type; {@code int} with {@code connect.type} int8 or int16;
   * the logical types decimal (bytes or fixed: Connect's Decimal, with {@code scale} and, unless
   * it is 64, {@code connect.decimal.precision}), date, time-millis and timestamp-millis; a union
   * of null and one type is that type, optional; any other union a struct named
   * {@code io.confluent.connect.avro.Union}, a field per member; an array of {@code MapEntry}
   * records a map with keys of any type; an enum a string with its symbols as parameters. Then
   * {@code connect.doc}, {@code connect.version}, {@code connect.parameters}, {@code connect.default}
   * (or the field's default) and {@code connect.name} (else a record's, enum's or fixed's full
   * name, except AvroData's own {@code ConnectDefault} names) complete it.
   */
  static final class ConnectForm {
    private static final String NAMESPACE = "io.confluent.connect.avro";
    private static final String DECIMAL = "org.apache.kafka.connect.data.Decimal";
    private static final String UNION = NAMESPACE + ".Union";
    private static final int DEFAULT_DECIMAL_PRECISION = 64;

    enum Kind {
      PLAIN,
      DECIMAL,
      ARRAY,
      MAP,
      MAP_ENTRIES,
      STRUCT,
      UNION
    }

    final String type;
    final Kind kind;
    boolean optional;
    String name;
    Integer version;
    String doc;
    LinkedHashMap<String, String> parameters;
    JsonNode defaultJson;
    ConnectForm items;
    ConnectForm keys;
    ConnectForm values;
    final List<String> fieldNames = new ArrayList<>();
    final List<ConnectForm> fields = new ArrayList<>();
    // a union: its Avro schema (to tell which member a value is) and each member's field
    Schema union;
    final List<Integer> memberFields = new ArrayList<>();
    private ObjectNode jsonSchema;

    private ConnectForm(String type, Kind kind) {
      this.type = type;
      this.kind = kind;
    }

    static ConnectForm of(Schema schema) {
      return build(schema, false, null, false, new HashSet<>());
    }

    private void parameter(String key, String value) {
      if (parameters == null) {
        parameters = new LinkedHashMap<>();
      }
      parameters.put(key, value);
    }

    private static ConnectForm logical(String type, String name) {
      ConnectForm form = new ConnectForm(type, Kind.PLAIN);
      form.name = name;
      form.version = 1;
      return form;
    }

    /**
     * The form of `schema`: `forceOptional` for a union's member, `fieldDefault` the default
     * of the record field it types (when `hasFieldDefault`), `inside` the records it is in.
     */
    private static ConnectForm build(
        Schema schema,
        boolean forceOptional,
        Object fieldDefault,
        boolean hasFieldDefault,
        Set<Schema> inside) {
      String connectType = schema.getProp("connect.type");
      String logicalType = schema.getProp("logicalType");
      ConnectForm form;
      switch (schema.getType()) {
        case BOOLEAN:
          form = new ConnectForm("boolean", Kind.PLAIN);
          break;
        case BYTES:
        case FIXED:
          if ("decimal".equalsIgnoreCase(logicalType)) {
            Object scale = schema.getObjectProp("scale");
            form = new ConnectForm("bytes", Kind.DECIMAL);
            form.name = DECIMAL;
            form.version = 1;
            form.parameter("scale", String.valueOf(scale instanceof Number n ? n.intValue() : 0));
            Object precision = schema.getObjectProp("precision");
            if (precision != null) {
              if (!(precision instanceof Number)) {
                throw new IllegalArgumentException("decimal precision is not a number: " + precision);
              }
              int digits = ((Number) precision).intValue();
              if (digits != DEFAULT_DECIMAL_PRECISION) {
                form.parameter("connect.decimal.precision", String.valueOf(digits));
              }
            }
          } else {
            form = new ConnectForm("bytes", Kind.PLAIN);
          }
          if (schema.getType() == Schema.Type.FIXED) {
            form.parameter("connect.fixed.size", String.valueOf(schema.getFixedSize()));
          }
          break;
        case DOUBLE:
          form = new ConnectForm("double", Kind.PLAIN);
          break;
        case FLOAT:
          form = new ConnectForm("float", Kind.PLAIN);
          break;
        case INT:
          if (logicalType != null) {
            if ("date".equalsIgnoreCase(logicalType)) {
              form = logical("int32", "org.apache.kafka.connect.data.Date");
            } else if ("time-millis".equalsIgnoreCase(logicalType)) {
              form = logical("int32", "org.apache.kafka.connect.data.Time");
            } else {
              form = new ConnectForm("int32", Kind.PLAIN);
            }
          } else if (connectType == null) {
            form = new ConnectForm("int32", Kind.PLAIN);
          } else if ("int8".equals(connectType) || "int16".equals(connectType)) {
            form = new ConnectForm(connectType, Kind.PLAIN);
          } else {
            throw new IllegalArgumentException("unknown connect.type of an int: " + connectType);
          }
          break;
        case LONG:
          form = "timestamp-millis".equalsIgnoreCase(logicalType)
              ? logical("int64", "org.apache.kafka.connect.data.Timestamp")
              : new ConnectForm("int64", Kind.PLAIN);
          break;
        case STRING:
          form = new ConnectForm("string", Kind.PLAIN);
          break;
        case ARRAY:
          Schema element = schema.getElementType();
          if (isMapEntry(element)) {
            if (element.getFields().size() != 2
                || element.getField("key") == null
                || element.getField("value") == null) {
              throw new IllegalArgumentException("a map entry record without key and value only");
            }
            form = new ConnectForm("map", Kind.MAP_ENTRIES);
            form.keys = build(element.getField("key").schema(), false, null, false, inside);
            form.values = build(element.getField("value").schema(), false, null, false, inside);
          } else {
            form = new ConnectForm("array", Kind.ARRAY);
            form.items = build(element, false, null, false, inside);
          }
          break;
        case MAP:
          form = new ConnectForm("map", Kind.MAP);
          form.keys = new ConnectForm("string", Kind.PLAIN);
          form.values = build(schema.getValueType(), false, null, false, inside);
          break;
        case RECORD:
          if (!inside.add(schema)) {
            throw new IllegalArgumentException(
                "the record " + schema.getFullName() + " contains itself: no Connect schema does");
          }
          form = new ConnectForm("struct", Kind.STRUCT);
          if (schema.getDoc() != null) {
            form.parameter(NAMESPACE + ".record.doc", schema.getDoc());
          }
          for (Schema.Field field : schema.getFields()) {
            if (field.doc() != null) {
              form.parameter(NAMESPACE + ".field.doc." + field.name(), field.doc());
            }
            ConnectForm fieldForm =
                build(field.schema(), false, field.defaultVal(), field.hasDefaultValue(), inside);
            if (field.getObjectProp("connect.parameters") instanceof Map<?, ?> overrides) {
              for (Map.Entry<?, ?> entry : overrides.entrySet()) {
                fieldForm.parameter(entry.getKey().toString(), entry.getValue().toString());
              }
            }
            form.fieldNames.add(field.name());
            form.fields.add(fieldForm);
          }
          inside.remove(schema);
          break;
        case ENUM:
          form = new ConnectForm("string", Kind.PLAIN);
          if (schema.getDoc() != null) {
            form.parameter(NAMESPACE + ".enum.doc." + schema.getName(), schema.getDoc());
          }
          if (schema.getEnumDefault() != null) {
            form.parameter(NAMESPACE + ".enum.default." + schema.getName(), schema.getEnumDefault());
          }
          form.parameter(NAMESPACE + ".Enum", schema.getFullName());
          for (String symbol : schema.getEnumSymbols()) {
            form.parameter(NAMESPACE + ".Enum." + symbol, symbol);
          }
          break;
        case UNION:
          List<Schema> members = schema.getTypes();
          if (members.size() == 1) {
            return build(members.get(0), false, null, false, inside);
          }
          if (members.size() == 2) {
            for (int index = 0; index < 2; index++) {
              if (members.get(index).getType() == Schema.Type.NULL) {
                return build(members.get(1 - index), true, null, false, inside);
              }
            }
          }
          form = new ConnectForm("struct", Kind.UNION);
          form.name = UNION;
          form.union = schema;
          for (Schema member : members) {
            if (member.getType() == Schema.Type.NULL) {
              form.optional = true;
              form.memberFields.add(-1);
              continue;
            }
            String fieldName = memberName(member);
            if (form.fieldNames.contains(fieldName)) {
              throw new IllegalArgumentException("two union members map to the field " + fieldName);
            }
            form.memberFields.add(form.fields.size());
            form.fieldNames.add(fieldName);
            form.fields.add(build(member, true, null, false, inside));
          }
          break;
        default:
          throw new IllegalArgumentException("an Avro " + schema.getType() + " schema has no Connect form");
      }
      String doc = schema.getProp("connect.doc");
      if (doc != null) {
        form.doc = doc;
      }
      Object version = schema.getObjectProp("connect.version");
      if (version != null) {
        if (!(version instanceof Number)) {
          throw new IllegalArgumentException("connect.version is not a number: " + version);
        }
        int number = ((Number) version).intValue();
        if (form.version != null && form.version != number) {
          throw new IllegalArgumentException(
              "connect.version " + number + " differs from the type's " + form.version);
        }
        form.version = number;
      }
      Object parameters = schema.getObjectProp("connect.parameters");
      if (parameters != null) {
        if (!(parameters instanceof Map<?, ?> map)) {
          throw new IllegalArgumentException("connect.parameters is not an object: " + parameters);
        }
        for (Map.Entry<?, ?> entry : map.entrySet()) {
          if (!(entry.getValue() instanceof String text)) {
            throw new IllegalArgumentException("a connect.parameters value is not a string: " + entry);
          }
          form.parameter(entry.getKey().toString(), text);
        }
      }
      for (Map.Entry<String, Object> property : schema.getObjectProps().entrySet()) {
        if (property.getKey().startsWith("avro")) {
          form.parameter(property.getKey(), property.getValue().toString());
        }
      }
      Object connectDefault = schema.getObjectProp("connect.default");
      Object defaultValue = connectDefault;
      if (hasFieldDefault) {
        defaultValue = fieldDefault;
        if (connectDefault == null) {
          form.parameter(NAMESPACE + ".field.default", "true");
        }
      }
      Object name = schema.getObjectProp("connect.name");
      String fullName = null;
      if (name != null) {
        if (!(name instanceof String text)) {
          throw new IllegalArgumentException("connect.name is not a string: " + name);
        }
        fullName = text;
      } else if (schema.getType() == Schema.Type.RECORD || schema.getType() == Schema.Type.ENUM) {
        fullName = schema.getFullName();
      } else if (schema.getType() == Schema.Type.FIXED && !DECIMAL.equals(form.name)) {
        fullName = schema.getFullName();
      }
      if (fullName != null && !fullName.startsWith(NAMESPACE + ".ConnectDefault")) {
        if (form.name != null && !form.name.equals(fullName)) {
          throw new IllegalArgumentException(
              "the name " + fullName + " differs from the type's " + form.name);
        }
        form.name = fullName;
      }
      if (forceOptional) {
        form.optional = true;
      }
      // the default last: it is written in the form's own terms
      if (defaultValue != null && defaultValue != JsonProperties.NULL_VALUE) {
        form.defaultJson = form.json(defaultValue, true);
      }
      return form;
    }

    private static boolean isMapEntry(Schema element) {
      return element.getType() == Schema.Type.RECORD
          && ((NAMESPACE.equals(element.getNamespace()) && "MapEntry".equals(element.getName()))
              || "MapEntry".equals(element.getProp("connect.internal.type")));
    }

    private static String memberName(Schema member) {
      switch (member.getType()) {
        case RECORD:
        case ENUM:
        case FIXED:
          return member.getName();
        default:
          return member.getType().getName();
      }
    }

    /** The Connect schema as JsonConverter writes it (asJsonSchema). */
    ObjectNode jsonSchema() {
      if (jsonSchema != null) {
        return jsonSchema;
      }
      ObjectNode node = NODES.objectNode().put("type", type);
      switch (kind) {
        case ARRAY:
          node.set("items", items.jsonSchema());
          break;
        case MAP:
        case MAP_ENTRIES:
          node.set("keys", keys.jsonSchema());
          node.set("values", values.jsonSchema());
          break;
        case STRUCT:
        case UNION:
          ArrayNode list = node.putArray("fields");
          for (int index = 0; index < fields.size(); index++) {
            ObjectNode field = fields.get(index).jsonSchema().deepCopy();
            field.put("field", fieldNames.get(index));
            list.add(field);
          }
          break;
        default:
          break;
      }
      node.put("optional", optional);
      if (name != null) {
        node.put("name", name);
      }
      if (version != null) {
        node.put("version", version);
      }
      if (doc != null) {
        node.put("doc", doc);
      }
      if (parameters != null) {
        ObjectNode map = node.putObject("parameters");
        parameters.forEach(map::put);
      }
      if (defaultJson != null) {
        node.set("default", defaultJson);
      }
      jsonSchema = node;
      return node;
    }

    JsonNode json(Object value) {
      return json(value, false);
    }

    /**
     * A value as JsonConverter writes it (convertToJson): an Avro datum, or (`isDefault`) a
     * default as Avro's parser gives it (numbers, strings, bytes as ISO-8859-1 text, lists,
     * maps of field names).
     */
    JsonNode json(Object value, boolean isDefault) {
      if (value == null || value == JsonProperties.NULL_VALUE) {
        if (defaultJson != null) {
          return defaultJson;
        }
        if (optional) {
          return NODES.nullNode();
        }
        throw new IllegalArgumentException("a null value of a required " + type + " with no default");
      }
      switch (kind) {
        case DECIMAL:
          byte[] unscaled = bytes(value);
          // JsonConverter writes the unscaled value's shortest two's complement
          return NODES.binaryNode(unscaled.length == 0 ? unscaled : new BigInteger(unscaled).toByteArray());
        case ARRAY:
          ArrayNode list = NODES.arrayNode();
          for (Object item : (Collection<?>) value) {
            list.add(items.json(item, isDefault));
          }
          return list;
        case MAP:
          ObjectNode object = NODES.objectNode();
          for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
            object.set(entry.getKey().toString(), values.json(entry.getValue(), isDefault));
          }
          return object;
        case MAP_ENTRIES:
          return mapEntries(value, isDefault);
        case STRUCT:
          ObjectNode struct = NODES.objectNode();
          for (int index = 0; index < fields.size(); index++) {
            Object fieldValue;
            if (value instanceof IndexedRecord record) {
              fieldValue = record.get(record.getSchema().getField(fieldNames.get(index)).pos());
            } else {
              fieldValue = ((Map<?, ?>) value).get(fieldNames.get(index));
            }
            struct.set(fieldNames.get(index), fields.get(index).json(fieldValue, isDefault));
          }
          return struct;
        case UNION:
          // a datum's member by Avro's own resolution; a default is of the first member
          int member = isDefault ? 0 : GenericData.get().resolveUnion(union, value);
          int chosen = memberFields.get(member);
          if (chosen < 0) {
            return optional ? NODES.nullNode() : json(null, isDefault);
          }
          ObjectNode members = NODES.objectNode();
          for (int index = 0; index < fields.size(); index++) {
            members.set(
                fieldNames.get(index),
                fields.get(index).json(index == chosen ? value : null, isDefault));
          }
          return members;
        default:
          return plain(value);
      }
    }

    private JsonNode mapEntries(Object value, boolean isDefault) {
      boolean objectMode = "string".equals(keys.type);
      ObjectNode object = NODES.objectNode();
      ArrayNode pairs = NODES.arrayNode();
      for (Object entry : (Collection<?>) value) {
        Object key;
        Object item;
        if (entry instanceof IndexedRecord record) {
          key = record.get(record.getSchema().getField("key").pos());
          item = record.get(record.getSchema().getField("value").pos());
        } else {
          key = ((Map<?, ?>) entry).get("key");
          item = ((Map<?, ?>) entry).get("value");
        }
        JsonNode keyJson = keys.json(key, isDefault);
        JsonNode itemJson = values.json(item, isDefault);
        if (objectMode) {
          object.set(keyJson.asText(), itemJson);
        } else {
          pairs.add(NODES.arrayNode().add(keyJson).add(itemJson));
        }
      }
      return objectMode ? object : pairs;
    }

    private JsonNode plain(Object value) {
      switch (type) {
        case "boolean":
          return NODES.booleanNode((Boolean) value);
        case "int8":
        case "int16":
        case "int32":
          return NODES.numberNode(((Number) value).intValue());
        case "int64":
          return NODES.numberNode(((Number) value).longValue());
        case "float":
          return NODES.numberNode(((Number) value).floatValue());
        case "double":
          return NODES.numberNode(((Number) value).doubleValue());
        case "string":
          return NODES.textNode(value.toString());
        case "bytes":
          return NODES.binaryNode(bytes(value));
        default:
          throw new IllegalArgumentException("no JSON for a " + type + " value");
      }
    }

    private static byte[] bytes(Object value) {
      if (value instanceof byte[] array) {
        return array;
      }
      if (value instanceof ByteBuffer buffer) {
        byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return copy;
      }
      if (value instanceof GenericFixed fixed) {
        return fixed.bytes();
      }
      if (value instanceof CharSequence text) {
        // a default in Avro's JSON form: one character per byte
        return text.toString().getBytes(StandardCharsets.ISO_8859_1);
      }
      throw new IllegalArgumentException("not bytes: " + value.getClass().getName());
    }
  }
}
