declare module "virtual:icons" {
  export const icons: string[];
}

declare module "board-theme" {
  export const accent: string;
}

declare module "*.css";

declare module "*.svg" {
  const url: string;
  export default url;
}
