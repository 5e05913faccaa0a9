package cdc.fs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system (file://, with its checksum files), whose permissions are set
 * through java.nio instead of a `chmod` process.
 *
 * <p>Without Hadoop's native library (pyspark ships none), RawLocalFileSystem sets the mode of
 * every file and folder it creates by starting `chmod`: about a thousand processes for one
 * small `dbt build` of this project, each forked from the driver's JVM. The mode set is the
 * same (the permission's nine rwx bits).
 */
public class CdcLocalFileSystem extends LocalFileSystem {
  public CdcLocalFileSystem() {
    super(new Raw());
  }

  /** The raw local file system, with setPermission through java.nio. */
  public static class Raw extends RawLocalFileSystem {
    // bit i of an FsPermission's short is BITS[i]: others x/w/r, group x/w/r, owner x/w/r
    private static final PosixFilePermission[] BITS = {
      PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE,
      PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
      PosixFilePermission.OWNER_READ,
    };

    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      short mode = permission.toShort();
      Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
      for (int bit = 0; bit < BITS.length; bit++) {
        if ((mode & (1 << bit)) != 0) {
          set.add(BITS[bit]);
        }
      }
      Files.setPosixFilePermissions(pathToFile(path).toPath(), set);
    }
  }
}
