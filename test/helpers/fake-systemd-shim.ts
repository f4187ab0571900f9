// `systemctl ...` / `journalctl ...` as the docs' commands run them in the team deployment test:
// passed to the test's FakeSystemd (test/helpers/fake-systemd.ts) over loopback, answered there.
const [tool, ...args] = process.argv.slice(2);
const response = await fetch(process.env.FAKE_SYSTEMD_URL!, {
  method: 'POST',
  body: JSON.stringify({ machine: process.env.FAKE_SYSTEMD_MACHINE, tool, args }),
});
const { code, output } = (await response.json()) as { code: number; output: string };
process.stdout.write(output);
process.exitCode = code;
