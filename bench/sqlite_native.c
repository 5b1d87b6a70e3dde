/* The reference of the sqlite rows of `make bench`: the same SQLite (build/sqlite/
 * sqlite3.c, the guest's compile options) compiled natively with -O2, doing what
 * bench/sqlite/insert_group.js does through node:sqlite in the guest: 100,000 rows
 * inserted by one prepared statement in one transaction (each value bound as the
 * guest binds a JS number: a double), then a grouped aggregate over them.
 *   sqlite_native REPS WARMUP   prints "sqlite.insert_group ms median min max p99 check" */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "sqlite3.h"

/* One run; its checksum (as the script computes it), or -1 on an error. */
static double once(void)
{
    sqlite3 *db;
    sqlite3_stmt *ins, *agg;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        return -1;
    double check = -1;
    if (sqlite3_exec(db, "create table t(id integer primary key, grp integer, val real, name text)",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v3(db, "insert into t(grp, val, name) values (?, ?, ?)", -1,
                           SQLITE_PREPARE_PERSISTENT, &ins, NULL) != SQLITE_OK)
        goto out;
    sqlite3_exec(db, "begin", NULL, NULL, NULL);
    for (int i = 0; i < 100000; i++) {
        char name[16];
        int len = snprintf(name, sizeof(name), "n%d", i);
        sqlite3_reset(ins);
        sqlite3_clear_bindings(ins);
        sqlite3_bind_double(ins, 1, (double)(i % 100));
        sqlite3_bind_double(ins, 2, i * 0.5);
        sqlite3_bind_text(ins, 3, name, len, SQLITE_TRANSIENT);
        if (sqlite3_step(ins) != SQLITE_DONE)
            goto out_ins;
        (void)sqlite3_changes64(db);
        (void)sqlite3_last_insert_rowid(db);
    }
    sqlite3_reset(ins);
    sqlite3_exec(db, "commit", NULL, NULL, NULL);
    if (sqlite3_prepare_v2(db, "select grp, count(*) as n, sum(val) as s, avg(val) as a, "
                               "max(name) as m from t group by grp order by grp",
                           -1, &agg, NULL) != SQLITE_OK)
        goto out_ins;
    check = 0;
    while (sqlite3_step(agg) == SQLITE_ROW)
        check += sqlite3_column_int64(agg, 1) + sqlite3_column_double(agg, 2) * 2 +
                 sqlite3_column_bytes(agg, 4);
    sqlite3_finalize(agg);
out_ins:
    sqlite3_finalize(ins);
out:
    sqlite3_close(db);
    return check;
}

int main(int argc, char **argv)
{
    if (argc != 3 || bench_clock_from_env() != 0) {
        fprintf(stderr, "usage: sqlite_native REPS WARMUP\n");
        return 2;
    }
    int reps = atoi(argv[1]), warmup = atoi(argv[2]);
    if (reps < 1)
        reps = 1;
    double *t = malloc(sizeof(*t) * (size_t)reps), check = 0;
    if (!t)
        return 1;
    for (int i = -warmup; i < reps; i++) {
        double t0 = bench_now_us();
        check = once();
        double dt = bench_now_us() - t0;
        if (check < 0) {
            fprintf(stderr, "sqlite_native: the SQL failed\n");
            return 1;
        }
        if (i >= 0)
            t[i] = dt / 1e3;
    }
    bench_sort(t, (size_t)reps);
    printf("sqlite.insert_group ms %.3f %.3f %.3f %.3f %.0f\n", bench_median(t, (size_t)reps), t[0],
           t[reps - 1], bench_percentile(t, (size_t)reps, 99), check);
    free(t);
    return 0;
}
