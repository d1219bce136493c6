import Testing

/// The suites that post the return to the foreground, which makes every live object of the process
/// that shows settings look at the Settings app's keys, and the suite whose model of the replicas
/// allows a look only where its schedule makes one (`ReplicaScheduleTests`): one test at a time.
@Suite(.serialized) enum ProcessWideNotices {}
