# Sourced by the idle benches: what process PID costs while it sits idle.
# idle_sample PID SECS waits 10 s for start-up to settle, then sets TICKS
# (user + system CPU ticks over SECS), RSS (KiB) and THREADS.
idle_sample() {
  sleep 10
  t0=$(awk '{print $14 + $15}' "/proc/$1/stat")
  sleep "$2"
  t1=$(awk '{print $14 + $15}' "/proc/$1/stat")
  TICKS=$((t1 - t0))
  RSS=$(awk '/VmRSS/ {print $2}' "/proc/$1/status")
  THREADS=$(awk '/Threads/ {print $2}' "/proc/$1/status")
}
