package cdc.landing;

import java.io.IOException;
import java.io.InputStream;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.GlobFilter;
import org.apache.hadoop.fs.GlobPattern;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.io.compress.BZip2Codec;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.DefaultCodec;
import org.apache.hadoop.io.compress.GzipCodec;
import org.apache.hadoop.util.ReflectionUtils;
import org.apache.spark.SparkEnv;
import org.apache.spark.deploy.SparkHadoopUtil;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF3;
import org.apache.spark.util.HadoopFSUtils;

/**
 * The landing files Spark's file sources never list, and their bytes, through Hadoop's FileSystem
 * API: the same code on every scheme Spark reads (a local folder, {@code s3a://}, {@code
 * abfss://}, {@code gs://}, {@code hdfs://}), with the connector and settings Spark's own listing
 * uses.
 *
 * <p>Spark's file index skips every file or folder whose name it hides ({@link
 * HadoopFSUtils#shouldFilterOutPathName}, {@link #isDataName}: a name starting with {@code _} or
 * {@code .}) and every zero-byte file, and no option turns that off. A Kafka Connect sink names
 * a topic's files after the topic, so the files of {@code __debezium-heartbeat.<server>} are
 * hidden, and an interrupted upload leaves a zero-byte file. Bronze lists them with {@link
 * UnlistedFiles} (SQL {@code cdc_landing_unlisted_files}) and reads the hidden ones with {@link
 * FileContent} (SQL {@code cdc_landing_file_content}); {@code cdc_tools.landing_udfs.register} registers
 * both, as Java UDFs.
 *
 * <p>They run in Spark's tasks (on a cluster's executors), with the Hadoop configuration of
 * Spark's settings ({@code spark.hadoop.*}, the Hadoop files on the class path, the AWS variables
 * of the environment), as Spark's file sources do.
 */
public final class CdcLandingFiles {
  /** The extensions decompressed, as bronze's text reads decompress them. */
  static final List<String> CODECS = Arrays.asList("gz", "bz2", "deflate", "zst");

  private static final String ZSTD_CODEC = "io.airlift.compress.zstd.ZstdCodec";
  private static SparkEnv configuredFor;
  private static Configuration configuration;

  private CdcLandingFiles() {}

  /** The Hadoop configuration of this JVM's Spark (built once per SparkEnv). */
  static synchronized Configuration hadoopConfiguration() {
    SparkEnv env = SparkEnv.get();
    if (configuration == null || env != configuredFor) {
      configuration =
          env == null
              ? new Configuration()
              : SparkHadoopUtil.get().newConfiguration(env.conf());
      configuredFor = env;
    }
    return configuration;
  }

  /** Whether a path part matches one of the globs of markers (Hadoop's glob syntax). */
  static boolean isIgnored(String name, List<GlobPattern> ignored) {
    for (GlobPattern glob : ignored) {
      if (glob.matches(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether Spark's file index keeps a file of this name as data: besides the names {@link
   * HadoopFSUtils#shouldFilterOutPathName} hides, it drops every file whose name starts with
   * {@code _} (without {@code =}) or {@code .}, Parquet's {@code _metadata} too
   * (PartitioningAwareFileIndex.isDataPath). Folders: that rule alone.
   */
  static boolean isDataName(String name, FileStatus status) {
    return status.isDirectory()
        || !((name.startsWith("_") && !name.contains("=")) || name.startsWith("."));
  }

  static List<GlobPattern> globs(scala.collection.Seq<?> names) {
    List<GlobPattern> globs = new ArrayList<>();
    if (names != null) {
      for (int index = 0; index < names.length(); index++) {
        Object name = names.apply(index);
        if (name != null) {
          globs.add(new GlobPattern(name.toString()));
        }
      }
    }
    return globs;
  }

  /**
   * Files under {@code folder} (recursively) that Spark's listing skips: hidden by Spark's rule
   * in their name or a folder's under {@code folder}, or zero bytes long; named to match {@code
   * nameGlob} (Spark's {@code pathGlobFilter}); no part of their path under {@code folder} a
   * marker ({@code ignored}). Named as Spark's listing names files; sorted. A folder that does
   * not exist has none.
   */
  static List<Row> unlisted(String folder, String nameGlob, List<GlobPattern> ignored)
      throws IOException {
    Path root = new Path(folder);
    FileSystem fs = root.getFileSystem(hadoopConfiguration());
    root = fs.makeQualified(root);
    GlobFilter names = new GlobFilter(nameGlob == null || nameGlob.isEmpty() ? "*" : nameGlob);
    List<Row> found = new ArrayList<>();
    try {
      if (!fs.getFileStatus(root).isDirectory()) {
        return found;
      }
    } catch (java.io.FileNotFoundException missing) {
      return found;
    }
    if ("file".equals(root.toUri().getScheme())) {
      walk(fs, root, false, names, ignored, found);
    } else {
      flat(fs, root, names, ignored, found);
    }
    found.sort((a, b) -> a.getString(0).compareTo(b.getString(0)));
    return found;
  }

  /**
   * An object store's listing: one flat listing of every object under the folder (S3A pages
   * through it, about one request per thousand objects, instead of one per folder), each
   * object's path under the folder then checked part by part as {@link #walk} checks them.
   */
  private static void flat(
      FileSystem fs, Path root, GlobFilter names, List<GlobPattern> ignored, List<Row> found)
      throws IOException {
    String prefix = root.toString() + "/";
    RemoteIterator<LocatedFileStatus> files = fs.listFiles(root, true);
    while (files.hasNext()) {
      LocatedFileStatus status = files.next();
      String path = status.getPath().toString();
      if (!path.startsWith(prefix)) {
        continue;
      }
      String[] parts = path.substring(prefix.length()).split("/");
      boolean hidden = !isDataName(parts[parts.length - 1], status);
      boolean marker = false;
      for (String part : parts) {
        marker |= isIgnored(part, ignored);
        hidden |= HadoopFSUtils.shouldFilterOutPathName(part);
      }
      if (!marker && (hidden || status.getLen() == 0) && names.accept(status.getPath())) {
        found.add(row(status));
      }
    }
  }

  private static Row row(FileStatus status) {
    return RowFactory.create(
        status.getPath().toString(), new Timestamp(status.getModificationTime()), status.getLen());
  }

  /** A local folder's listing, folder by folder, markers' folders not entered. */
  private static void walk(
      FileSystem fs,
      Path folder,
      boolean hidden,
      GlobFilter names,
      List<GlobPattern> ignored,
      List<Row> found)
      throws IOException {
    FileStatus[] statuses;
    try {
      statuses = fs.listStatus(folder);
    } catch (java.io.FileNotFoundException vanished) { // removed since its parent was listed
      return;
    }
    Arrays.sort(statuses, (a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
    for (FileStatus status : statuses) {
      String name = status.getPath().getName();
      if (isIgnored(name, ignored)) {
        continue;
      }
      boolean hiddenHere =
          hidden || HadoopFSUtils.shouldFilterOutPathName(name) || !isDataName(name, status);
      if (status.isDirectory()) {
        walk(fs, status.getPath(), hiddenHere, names, ignored, found);
      } else if ((hiddenHere || status.getLen() == 0) && names.accept(status.getPath())) {
        found.add(row(status));
      }
    }
  }

  /**
   * The bytes of a landing file, decompressed by its extension ({@code .gz}, {@code .bz2}, {@code
   * .deflate}, {@code .zst}) with the codecs bronze's text reads use: a row ({@code content},
   * {@code error}), {@code error} saying why when it cannot be read whole.
   */
  static Row read(String file) {
    Path path = new Path(file);
    String name = path.getName();
    int dot = name.lastIndexOf('.');
    String extension = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    try {
      Configuration conf = hadoopConfiguration();
      FileSystem fs = path.getFileSystem(conf);
      CompressionCodec codec = CODECS.contains(extension) ? codec(extension, conf) : null;
      try (InputStream raw = fs.open(path);
          InputStream in = codec == null ? raw : codec.createInputStream(raw)) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        IOUtils.copyBytes(in, bytes, 1 << 16, false);
        return RowFactory.create(bytes.toByteArray(), null);
      }
    } catch (IOException | RuntimeException | ClassNotFoundException error) {
      return RowFactory.create(null, error.getClass().getSimpleName() + ": " + error.getMessage());
    }
  }

  private static CompressionCodec codec(String extension, Configuration conf)
      throws ClassNotFoundException {
    Map<String, Class<?>> classes =
        Map.of("gz", GzipCodec.class, "bz2", BZip2Codec.class, "deflate", DefaultCodec.class);
    Class<?> codecClass =
        extension.equals("zst") ? conf.getClassByName(ZSTD_CODEC) : classes.get(extension);
    return (CompressionCodec) ReflectionUtils.newInstance(codecClass, conf);
  }

  /** SQL {@code cdc_landing_unlisted_files(folder, name_glob, ignored_names)}. */
  public static final class UnlistedFiles
      implements UDF3<String, String, scala.collection.Seq<?>, List<Row>> {
    private static final long serialVersionUID = 1L;

    @Override
    public List<Row> call(String folder, String nameGlob, scala.collection.Seq<?> ignored)
        throws IOException {
      return unlisted(folder, nameGlob, globs(ignored));
    }
  }

  /** SQL {@code cdc_landing_file_content(path)}. */
  public static final class FileContent implements UDF1<String, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public Row call(String path) {
      return read(path);
    }
  }
}
