#!/usr/bin/env bash
# A MariaDB for the test suite alone: data on tmpfs and relaxed flushing (no doublewrite, the log
# flushed about once a second, no binary log). Crash safety is worth nothing to databases that are
# dropped when their test ends, and durable flushing is most of a test write's cost.
#   support/test-mariadb.sh start DIR PORT   starts it (as mysql when root) and waits until it answers
#   support/test-mariadb.sh stop DIR         stops it by the PID in DIR and removes DIR
# The server keeps the stock server's character set, collation and SQL mode, so tests see the same
# behaviour as on the machine's own MariaDB.
set -euo pipefail

command=${1:?usage: test-mariadb.sh start DIR PORT | stop DIR}
dir=${2:?a directory for the data of the server}

case "$command" in
  start)
    port=${3:?a port}
    mkdir -p "$dir/data"
    cat >"$dir/my.cnf" <<CNF
[mariadbd]
datadir=$dir/data
socket=$dir/mysqld.sock
pid-file=$dir/mysqld.pid
log-error=$dir/error.log
port=$port
bind-address=127.0.0.1
skip-name-resolve
skip-log-bin
character-set-server=utf8mb4
collation-server=utf8mb4_general_ci
sql-mode=STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION
innodb_flush_log_at_trx_commit=0
innodb_doublewrite=0
innodb_flush_method=nosync
sync_binlog=0
innodb_buffer_pool_size=1G
innodb_log_file_size=256M
max_connections=400
CNF
    user=()
    if [ "$(id -u)" = 0 ]; then
      chmod 755 "$dir"
      chown -R mysql:mysql "$dir"
      user=(--user=mysql)
    fi
    mariadb-install-db --defaults-file="$dir/my.cnf" --auth-root-authentication-method=normal --skip-test-db "${user[@]}" >/dev/null
    /usr/sbin/mariadbd --defaults-file="$dir/my.cnf" "${user[@]}" >/dev/null 2>&1 &
    for _ in $(seq 1 60); do
      if mariadb-admin --host=127.0.0.1 --port="$port" --user=root ping >/dev/null 2>&1; then
        mariadb --host=127.0.0.1 --port="$port" --user=root -e 'CREATE DATABASE IF NOT EXISTS test'
        exit 0
      fi
      sleep 1
    done
    echo "the test MariaDB did not start:" >&2
    tail -n 20 "$dir/error.log" >&2 || true
    exit 1
    ;;
  stop)
    if [ -s "$dir/mysqld.pid" ]; then
      pid=$(cat "$dir/mysqld.pid")
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: test-mariadb.sh start DIR PORT | stop DIR" >&2
    exit 2
    ;;
esac
