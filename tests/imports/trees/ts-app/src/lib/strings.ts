export function slugify(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}

const shout = (text: string) => text.toUpperCase();
export default shout;
