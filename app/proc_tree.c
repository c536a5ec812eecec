/* proc_tree.c - see proc_tree.h. */
#include "proc_tree.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void proc_tree_adopt(void) { prctl(PR_SET_CHILD_SUBREAPER, 1); }

/* The parent of pid from /proc/PID/stat (its fourth field), or -1. */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    int ppid;
    char state;
    if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2) return -1;
    return (pid_t)ppid;
}

int proc_tree_signal(int sig)
{
    enum { MAX_PROCS = 65536 };
    pid_t *pid = malloc(sizeof *pid * MAX_PROCS), *ppid = malloc(sizeof *ppid * MAX_PROCS);
    char *below = calloc(MAX_PROCS, 1);
    DIR *d = opendir("/proc");
    int n = 0, sent = 0;
    if (!pid || !ppid || !below || !d) goto done;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_PROCS;) {
        pid_t p = (pid_t)atoi(e->d_name);
        if (p <= 0) continue;
        pid[n] = p, ppid[n] = parent_of(p), n++;
    }
    pid_t self = getpid();
    for (int changed = 1; changed;) { /* a process is below us when its parent is us or below us */
        changed = 0;
        for (int i = 0; i < n; i++) {
            if (below[i] || pid[i] == self) continue;
            int parent_below = ppid[i] == self;
            for (int j = 0; j < n && !parent_below; j++) parent_below = below[j] && pid[j] == ppid[i];
            if (parent_below) below[i] = 1, changed = 1;
        }
    }
    for (int i = 0; i < n; i++)
        if (below[i] && kill(pid[i], sig) == 0) sent++;
done:
    if (d) closedir(d);
    free(pid), free(ppid), free(below);
    return sent;
}

void proc_tree_reap(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0) {}
}
