/* atomic_file.c - see atomic_file.h. */
#include "atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void atomic_tmp_name(const char *path, char *tmp, size_t tmpsz)
{
    snprintf(tmp, tmpsz, "%s.tmp.%ld", path, (long)getpid());
}

static void fsync_dir_of(const char *path)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Removes "<path>.tmp.<pid>" files whose writer is gone (killed during a
 * save): a live pid's file, or another user's, is left alone. */
static void remove_stale_tmps(const char *path)
{
    char dcopy[4096], bcopy[4096], prefix[4200], stale[8400];
    snprintf(dcopy, sizeof dcopy, "%s", path), snprintf(bcopy, sizeof bcopy, "%s", path);
    const char *dir = dirname(dcopy), *base = basename(bcopy);
    int np = snprintf(prefix, sizeof prefix, "%s.tmp.", base);
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, (size_t)np) != 0) continue;
        char *end;
        long pid = strtol(e->d_name + np, &end, 10);
        if (*end || pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        snprintf(stale, sizeof stale, "%s/%s", dir, e->d_name);
        unlink(stale);
    }
    closedir(d);
}

int atomic_commit(const char *tmp, const char *path, gs_err_t *err)
{
    int fd = open(tmp, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        unlink(tmp);
        return gs_fail(err, GS_EFAIL, "%s: cannot sync (%s)", tmp, strerror(e));
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return gs_fail(err, GS_EFAIL, "%s: cannot rename into place (%s)", path, strerror(e));
    }
    fsync_dir_of(path);
    remove_stale_tmps(path);
    return GS_OK;
}

int atomic_target_ok(const char *path, gs_err_t *err)
{
    struct stat st;
    if (!path[0]) return gs_fail(err, GS_EINPUT, "an output file needs a name");
    if (lstat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return gs_fail(err, GS_EINPUT, "%s: is a directory, not a file", path);
        if (S_ISLNK(st.st_mode)) return gs_fail(err, GS_EINPUT, "%s: is a symbolic link; name the file itself", path);
        if (!S_ISREG(st.st_mode)) return gs_fail(err, GS_EINPUT, "%s: is not a regular file (a device or a FIFO)", path);
    } else if (errno != ENOENT) {
        return gs_fail(err, GS_EINPUT, "%s: %s", path, strerror(errno));
    }
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    const char *dir = dirname(copy);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return gs_fail(err, GS_EINPUT, "%s: no such directory %s", path, dir);
    if (access(dir, W_OK) != 0) return gs_fail(err, GS_EINPUT, "%s: directory %s is not writable", path, dir);
    return GS_OK;
}

FILE *atomic_fopen(const char *path, char *tmp, size_t tmpsz, gs_err_t *err)
{
    if (atomic_target_ok(path, err)) return NULL;
    atomic_tmp_name(path, tmp, tmpsz);
    FILE *f = fopen(tmp, "wb");
    if (!f) gs_fail(err, GS_EINPUT, "%s: cannot create (%s)", path, strerror(errno));
    return f;
}

int atomic_fclose(FILE *f, const char *tmp, const char *path, gs_err_t *err)
{
    int bad = ferror(f) != 0;
    if (fflush(f) != 0) bad = 1;
    int e = errno;
    if (fclose(f) != 0) bad = 1;
    if (bad) {
        unlink(tmp);
        return gs_fail(err, GS_EFAIL, "%s: write failed (%s)", path, strerror(e));
    }
    return atomic_commit(tmp, path, err);
}

int mkdir_p(const char *dir, gs_err_t *err)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return gs_fail(err, GS_EINPUT, "%s: cannot create directory (%s)", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return gs_fail(err, GS_EINPUT, "%s: cannot create directory (%s)", buf, strerror(errno));
    return GS_OK;
}
