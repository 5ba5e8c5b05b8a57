/** The machine a bench summary test's results name (the summaries quote it with every figure). */
export function testMachine() {
  return {
    cores: 2,
    cpuModel: "Test CPU",
    totalMemoryBytes: 2 ** 34,
    node: "v20.20.2",
    platform: "linux",
    loadAverageStart: [1],
    loadAverageEnd: [1],
  };
}
