# The program of the spawner process (spawner-process.ts), in Perl because `perl` (perl-base) is
# on every Debian/Ubuntu host and in our Debian-slim image, and a ~4 MB process forks in a
# fraction of what the daemon's ~100 MB address space costs. Its only job: fork, set up the
# child exactly as Node's spawn would (own session, pipes, environment, uid/gid), exec, and
# relay the child's pid, output and wait status. Without perl the daemon spawns in-thread.
# It runs as `perl -e <this text>` with the command pipe on fd 3 and the event pipe on fd 4
# (spawner-script.ts loads it; `npm run check` runs `perl -c` on it).
#
# Frames both ways: u32 big-endian length, then a payload whose first byte is the type.
#   to the spawner:   V envc ("K=V")*                       the environment of the spawns that follow
#                     S id uid gid flags file argc (arg)* cwd nice
#                                                           spawn (strings: u32 length + bytes;
#                                                           cwd '' = unchanged; nice u32 + 100)
#                     C id stream                           stop reading a stream
#                     W id                                  withdraw a spawn not yet forked (answered
#                                                           F id ECANCELED; ignored once forked)
#   from it:          P id pid sec nsec | F id errno | D id stream bytes | E id stream | X id waitstatus
# (ids, pids, errno and wait status: u32; stream: 1 byte, 1 = stdout, 2 = stderr;
#  uid/gid 0xFFFFFFFF = unchanged; flags: 1 capture stdout, 2 capture stderr; P's sec/nsec: the
#  fork's instant on CLOCK_MONOTONIC, the clock Node's process.hrtime reads, 0/0 when unknown.)
use strict; use warnings;
use POSIX ();
use Fcntl qw(F_GETFL F_SETFL F_SETFD FD_CLOEXEC O_NONBLOCK);
use Errno qw(EINTR EAGAIN);
open(my $cmd, '<&=', 3) or POSIX::_exit(70);
open(my $ev, '>&=', 4) or POSIX::_exit(70);
binmode $cmd; binmode $ev;
sub cloexec { fcntl($_[0], F_SETFD, FD_CLOEXEC) }
sub nonblock { my $f = fcntl($_[0], F_GETFL, 0); fcntl($_[0], F_SETFL, $f | O_NONBLOCK) }
cloexec($cmd); cloexec($ev); nonblock($cmd);
pipe(my $wake_r, my $wake_w) or POSIX::_exit(71);
cloexec($wake_r); cloexec($wake_w); nonblock($wake_r); nonblock($wake_w);
# The dispositions the jobs inherit (exec resets only handled signals, so ignored ones would stay).
$SIG{$_} = 'DEFAULT' for qw(PIPE INT TERM HUP QUIT);
$SIG{CHLD} = sub { syswrite($wake_w, 'x') };
my $NONE = 4294967295;
my (%runs, %by_pid, %readers, %errpipes);
my $inbuf = '';
# Frames read but not yet acted on. Input is read ahead of the forks, so a withdrawal (W) written
# after a queue of spawns (a daemon stopping under overload) reaches them before they are forked.
my @queue;
my (%withdrawn, $eof);
my $forked_upto = 0;
my $ECANCELED = 125;
# Frames acted on per turn of the loop: answers, output and reaping go on during a long queue.
my $TURN = 32;
my $rin = '';
sub watch { vec($rin, $_[0], 1) = 1 }
sub unwatch { vec($rin, $_[0], 1) = 0 }
watch(fileno($cmd)); watch(fileno($wake_r));
# Frames are gathered and written once per turn of the loop: one write for a burst's answers.
my $out = '';
sub emit { $out .= pack('N', length $_[0]) . $_[0] }
sub flush {
  while (length $out) {
    my $n = syswrite($ev, $out);
    if (!defined $n) { next if $! == EINTR; POSIX::_exit(0) }
    substr($out, 0, $n) = '';
  }
}
# The environment is set here, in the spawner, once per V frame: a forked child inherits it as it
# is and execs at once. Whatever Perl runs between fork and exec writes to pages shared with this
# process, and each such page is copied for the child (the jobs' own CPU in a herd).
sub set_env {
  my ($p) = @_;
  my $o = 1;
  my $n = unpack('N', substr($p, $o, 4)); $o += 4;
  my %env;
  for (1 .. $n) {
    my $len = unpack('N', substr($p, $o, 4));
    my ($k, $v) = split(/=/, substr($p, $o + 4, $len), 2);
    $env{$k} = $v; $o += 4 + $len;
  }
  %ENV = %env;
}
# The fork's instant, so a run counts from its start even when the daemon reads the answer late (a
# herd's queue) or early. Time::HiRes is in libperl, not perl-base: without it the daemon estimates.
my $mono = eval { require Time::HiRes; my $c = Time::HiRes::CLOCK_MONOTONIC(); Time::HiRes::clock_gettime($c); sub { Time::HiRes::clock_gettime($c) } };
my $EMPTY = POSIX::SigSet->new();
sub spawn_run {
  my ($p) = @_;
  my $o = 1;
  my $u32 = sub { my $v = unpack('N', substr($p, $o, 4)); $o += 4; $v };
  my $str = sub { my $n = $u32->(); my $s = substr($p, $o, $n); $o += $n; $s };
  my $id = $u32->(); my $uid = $u32->(); my $gid = $u32->();
  my $flags = ord(substr($p, $o, 1)); $o += 1;
  my $file = $str->();
  my @args = map { $str->() } 1 .. $u32->();
  my $cwd = $str->(); my $nice = $u32->();
  my ($or, $ow, $xr, $xw, $er, $ew);
  pipe($er, $ew) or return emit(pack('aNN', 'F', $id, $! + 0));
  if ($flags & 1) { pipe($or, $ow) or return emit(pack('aNN', 'F', $id, $! + 0)) }
  if ($flags & 2) { pipe($xr, $xw) or return emit(pack('aNN', 'F', $id, $! + 0)) }
  # pipe() sets close-on-exec itself (descriptors above $^F). Only the unbuffered bottom layer is
  # kept: fork and exec flush every open handle first, and a buffered one is written to then
  # (in the child: a copied page per handle, with a herd's pipes open).
  binmode($_, ':pop') for grep { defined } ($er, $ew, $or, $ow, $xr, $xw);
  my $pid = fork();
  my $at = $mono && $pid ? $mono->() : 0;
  if (!defined $pid) { emit(pack('aNN', 'F', $id, $! + 0)); return }
  if ($pid == 0) {
    # Only SIGCHLD has a handler here, and exec resets handlers: the mask is what may be left.
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), $EMPTY);
    POSIX::setsid();
    POSIX::dup2(fileno($ow), 1) if $ow;
    POSIX::dup2(fileno($xw), 2) if $xw;
    # Spec 09 §3: the directory before any user switch; the nice before exec, so no instant of
    # the job runs at the inherited priority. A refused nice is ignored (the job still runs).
    if (length $cwd) { chdir($cwd) or child_failed($ew) }
    if ($nice != $NONE) { setpriority(0, 0, $nice - 100) }
    if ($gid != $NONE) { $) = "$gid $gid"; POSIX::setgid($gid) or child_failed($ew) }
    if ($uid != $NONE) { POSIX::setuid($uid) or child_failed($ew) }
    { no warnings; exec { $file } @args; }
    child_failed($ew);
  }
  close($ew); close($ow) if $ow; close($xw) if $xw;
  my $run = { id => $id, pid => $pid, er => $er, out => $or, err => $xr, started => 0, failed => 0, at => $at };
  $runs{$id} = $run; $by_pid{$pid} = $run;
  $errpipes{fileno($er)} = $run;
  watch(fileno($er));
}
sub settle {
  my ($run) = @_;
  my $er = $run->{er} or return;
  my $buf = '';
  my $n = sysread($er, $buf, 4);
  return if !defined $n && ($! == EAGAIN || $! == EINTR);
  delete $errpipes{fileno($er)}; unwatch(fileno($er)); close($er); $run->{er} = undef;
  if ($n && $n == 4) {
    $run->{failed} = 1;
    close($run->{out}) if $run->{out}; close($run->{err}) if $run->{err};
    $run->{out} = undef; $run->{err} = undef;
    emit(pack('aNN', 'F', $run->{id}, unpack('N', $buf)));
    return;
  }
  $run->{started} = 1;
  my $sec = int($run->{at});
  emit(pack('aNNNN', 'P', $run->{id}, $run->{pid}, $sec, int(($run->{at} - $sec) * 1e9)));
  for my $s ([1, 'out'], [2, 'err']) {
    my $fh = $run->{$s->[1]} or next;
    nonblock($fh);
    $readers{fileno($fh)} = [$run, $s->[0], $fh];
    watch(fileno($fh));
  }
}
sub drop_reader {
  my ($fd) = @_;
  my $r = delete $readers{$fd} or return;
  unwatch($fd);
  close($r->[2]);
  $r->[0]{$r->[1] == 1 ? 'out' : 'err'} = undef;
  emit(pack('aNC', 'E', $r->[0]{id}, $r->[1]));
  forget($r->[0]);
}
sub forget {
  my ($run) = @_;
  return if defined $run->{er} || $run->{out} || $run->{err} || !$run->{reaped};
  delete $runs{$run->{id}};
}
sub reap {
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $status = $?;
    my $run = delete $by_pid{$pid} or next;
    if (defined $run->{er}) { my $f = fcntl($run->{er}, F_GETFL, 0); fcntl($run->{er}, F_SETFL, $f & ~O_NONBLOCK); settle($run) }
    $run->{reaped} = 1;
    emit(pack('aNN', 'X', $run->{id}, $status)) unless $run->{failed};
    forget($run);
  }
}
sub child_failed { syswrite($_[0], pack('N', $! + 0)); POSIX::_exit(127) }
sub command {
  my ($p) = @_;
  my $t = substr($p, 0, 1);
  if ($t eq 'S') {
    my $id = unpack('N', substr($p, 1, 4));
    $forked_upto = $id;
    return emit(pack('aNN', 'F', $id, $ECANCELED)) if delete $withdrawn{$id};
    spawn_run($p);
  }
  elsif ($t eq 'V') { set_env($p) }
  elsif ($t eq 'C') {
    my ($id, $stream) = unpack('NC', substr($p, 1));
    my $run = $runs{$id} or return;
    my $fh = $run->{$stream == 1 ? 'out' : 'err'} or return;
    drop_reader(fileno($fh));
  }
}
# Everything the daemon has written so far, as frames on @queue; withdrawals apply at once.
sub take_input {
  while (1) {
    my $got = sysread($cmd, $inbuf, 65536, length $inbuf);
    if (!defined $got) { next if $! == EINTR; last }
    if ($got == 0) { $eof = 1; unwatch(fileno($cmd)); last }
  }
  while (length($inbuf) >= 4) {
    my $len = unpack('N', $inbuf);
    last if length($inbuf) < 4 + $len;
    my $p = substr($inbuf, 4, $len);
    substr($inbuf, 0, 4 + $len) = '';
    if (substr($p, 0, 1) eq 'W') {
      my $id = unpack('N', substr($p, 1, 4));
      $withdrawn{$id} = 1 if $id > $forked_upto;
    } else { push @queue, $p }
  }
}
while (1) {
  flush();
  if ($eof && !@queue) { POSIX::_exit(0) }
  my $n = select(my $rout = $rin, undef, undef, @queue ? 0 : 1);
  if ($n < 0) { next if $! == EINTR; POSIX::_exit(72) }
  # The ready descriptors, from the bit string (cheaper than testing every watched one).
  my $bits = unpack('b*', $rout);
  my @ready;
  my $at = -1;
  push @ready, $at while ($at = index($bits, '1', $at + 1)) >= 0;
  for my $fd (@ready) {
    if ($fd == fileno($wake_r)) { my $x; 1 while sysread($wake_r, $x, 512); next }
    if ($fd == fileno($cmd)) { take_input(); next }
    if (my $run = $errpipes{$fd}) { settle($run); next }
    my $r = $readers{$fd} or next;
    my $buf = '';
    my $got = sysread($r->[2], $buf, 65536);
    if (!defined $got) { next if $! == EAGAIN || $! == EINTR; drop_reader($fd); next }
    if ($got == 0) { drop_reader($fd); next }
    emit(pack('aNC', 'D', $r->[0]{id}, $r->[1]) . $buf);
  }
  reap();
  for (1 .. $TURN) {
    my $p = shift @queue;
    last unless defined $p;
    command($p);
  }
}
