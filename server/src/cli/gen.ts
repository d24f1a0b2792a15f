export async function runGen(_args: string[]): Promise<number> {
  return 0;
}
