// A real Scheduler driven by a FakeClock and a FakeLauncher, its events recorded: the schedule loop's
// unit tests' one set-up. Which jobs it loads and where its log goes stay with each test.
import type { SchedulerEvent } from '../../src/scheduler/events.ts';
import { Scheduler } from '../../src/scheduler/scheduler.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { Logger } from '../../src/util/log.ts';
import { FakeLauncher } from './fake-launcher.ts';

type SchedulerDeps = ConstructorParameters<typeof Scheduler>[0];

export interface FakeScheduler {
  clock: FakeClock;
  launcher: FakeLauncher;
  scheduler: Scheduler;
  events: SchedulerEvent[];
}

/** Reports go nowhere unless `deps` (given the clock and launcher) replaces that or any other part. */
export function fakeScheduler(
  startMs: number,
  deps: (clock: FakeClock, launcher: FakeLauncher) => Partial<SchedulerDeps> = () => ({}),
): FakeScheduler {
  const clock = new FakeClock(startMs);
  const launcher = new FakeLauncher(clock);
  const scheduler = new Scheduler({
    clock,
    log: new Logger('cronstable'),
    launch: launcher.launch,
    report: async () => {},
    ...deps(clock, launcher),
  });
  const events: SchedulerEvent[] = [];
  scheduler.subscribe((e) => events.push(e));
  return { clock, launcher, scheduler, events };
}
